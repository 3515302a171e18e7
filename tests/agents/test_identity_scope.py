"""An attempt's key holds what can change what the attempt does, and nothing else (issue 32): a
comment, a log line or a renamed private function in any harness module moves neither the
reference agent's identity nor the attempt's harness part; a bump of a contract its code runs
through moves both, and a bump of one it does not (grading) moves neither."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = ("import json; from evaluator.agents import load_agent; "
         "from evaluator.attempts import harness_environment; "
         "from evaluator.version import contract_versions; "
         "a = load_agent('reference-strong', 'agents'); "
         "print(a.identity, json.dumps([contract_versions('attempt'), harness_environment()], "
         "sort_keys=True))")


def key_parts(root: Path) -> tuple[str, str]:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root),
                               "PYTHONDONTWRITEBYTECODE": "1"}, timeout=120)
    assert done.returncode == 0, done.stderr
    identity, harness = done.stdout.strip().split(" ", 1)
    return identity, harness


def bump(root: Path, const: str) -> None:
    """Add a line to the log of contract `const` (its version moves by one)."""
    declared = root / "evaluator" / "version" / "_declared.py"
    text = declared.read_text()
    start = text.index(f"\n{const} = Contract(")
    at = text.index("(FIRST,)", start)
    declared.write_text(text[:at] + '(FIRST, "a test bump")' + text[at + len("(FIRST,)"):])


def test_neutral_edits_keep_keys_and_bumps_move_what_depends_on_them(tmp_path: Path) -> None:
    for part in ("evaluator", "agents"):
        shutil.copytree(REPO / part, tmp_path / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(REPO / "requirements.lock", tmp_path)
    before = key_parts(tmp_path)
    pkg = tmp_path / "evaluator"
    stream = pkg / "sandbox" / "docker" / "_stream.py"  # the Docker backend's exec
    stream.write_text(stream.read_text() + "\n# a comment\n")
    text = pkg / "reports" / "_text.py"
    text.write_text(text.read_text() + "\n# a report tweak\n")
    loop = pkg / "agents" / "_reference.py"
    loop.write_text(re.sub(r"\bcut\b", "_cut_output", loop.read_text()))  # a private rename
    # a log line: a debug message at the start of every exec
    stream.write_text(stream.read_text().replace(
        "    started = time.monotonic()\n",
        "    started = time.monotonic()\n    __import__('logging').getLogger(__name__).debug("
        "'exec %s', argv[:1])\n", 1))
    assert "getLogger" in stream.read_text()
    assert key_parts(tmp_path) == before
    bump(tmp_path, "GRADER")  # grading is in no attempt's key, nor in the agent's code
    assert key_parts(tmp_path) == before
    bump(tmp_path, "REFERENCE_AGENT")  # the loop's behaviour: its identity, not the harness part
    after = key_parts(tmp_path)
    assert after[0] != before[0] and after[1] == before[1]
    bump(tmp_path, "SANDBOX")  # what an agent observes: the attempt's harness part moves
    moved = key_parts(tmp_path)
    assert moved[1] != after[1]
