"""Console lines from processes that share one pipe, as doit's `-P process` workers do, stay
whole: each is one write."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.pipeline.support import REPO

# Six processes write 400 lines each, unbuffered, into one pipe. print() writes the text and
# the newline apart and runs lines together here within a few hundred lines.
_WRITERS = """
import multiprocessing, sys
from evaluator.console import say
write = say if sys.argv[1] == "say" else print
def lines(n):
    for i in range(400):
        write(f"process {n} line {i} " + "x" * 40)
procs = [multiprocessing.Process(target=lines, args=(n,)) for n in range(6)]
[p.start() for p in procs]
[p.join() for p in procs]
"""


def _shared_pipe(writer: str) -> list[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", _WRITERS, writer], env=env, text=True,
                         capture_output=True, check=True, timeout=120).stdout
    return out.splitlines()


def test_lines_from_processes_sharing_a_pipe_stay_whole() -> None:
    lines = _shared_pipe("say")
    assert len(lines) == 2400
    assert all(re.fullmatch(r"process \d line \d+ x{40}", line) for line in lines)
