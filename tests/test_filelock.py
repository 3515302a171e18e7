"""evaluator.filelock: a second process waits for the first to leave its block."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from evaluator.filelock import exclusive

_HOLD = """
import sys, time
from pathlib import Path
from evaluator.filelock import exclusive
print("ready", flush=True)
with exclusive(Path(sys.argv[1])):
    print(time.monotonic(), flush=True)
    time.sleep(float(sys.argv[2]))
print("out", flush=True)
"""


def test_a_second_process_waits_until_the_first_leaves(tmp_path: Path) -> None:
    lock = tmp_path / "deep" / "x.lock"
    with exclusive(lock):
        other = subprocess.Popen([sys.executable, "-c", _HOLD, str(lock), "0"],
                                 stdout=subprocess.PIPE, text=True)
        assert other.stdout is not None and other.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        left = time.monotonic()
    entered, end = other.communicate(timeout=30)[0].split()
    assert float(entered) >= left, "the other process got in while the lock was held"
    assert end == "out" and other.returncode == 0

