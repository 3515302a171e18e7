"""An attempt's key holds the code that can change what the attempt does, and nothing else:
editing the harness's report code leaves it alone, editing the agent loop does not."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = ("from evaluator.agents import load_agent; from evaluator.version import harness_version;"
         "a = load_agent('reference-strong', 'agents'); print(a.identity, harness_version('attempt'))")


def key_parts(root: Path) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_report_edit_keeps_attempt_keys_and_an_agent_loop_edit_changes_them(tmp_path) -> None:
    for part in ("evaluator", "agents"):
        shutil.copytree(REPO / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(REPO / "requirements.lock", tmp_path)
    before = key_parts(tmp_path)
    text = tmp_path / "evaluator" / "reports" / "_text.py"
    text.write_text(text.read_text() + "\n# a report tweak\n")
    assert key_parts(tmp_path) == before
    loop = tmp_path / "evaluator" / "agents" / "_reference.py"
    loop.write_text(loop.read_text() + "\n# a loop tweak\n")
    after = key_parts(tmp_path)
    assert after.split()[0] != before.split()[0] and after.split()[1] != before.split()[1]
