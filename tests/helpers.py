"""Small builders shared by the tests: a valid task set on disk that each test can break."""

from __future__ import annotations

import os
import socket
import textwrap
from pathlib import Path
from typing import NoReturn

import pytest
import yaml

REPO_FILES = {
    "calc/__init__.py": "from calc.ops import add\n",
    "calc/ops.py": "def add(a, b):\n    return a - b\n",
    "tests/test_visible.py": "from calc.ops import add\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = .\n",
}
HIDDEN_FILES = {
    "tests/test_hidden.py": textwrap.dedent("""\
        # hidden-marker-7f3a: this text must never be found in an agent's sandbox
        from calc.ops import add

        def test_add():
            assert add(2, 3) == 5

        def test_zero_hidden():
            assert add(0, 0) == 0
        """),
}
GOLD = textwrap.dedent("""\
    diff --git a/calc/ops.py b/calc/ops.py
    --- a/calc/ops.py
    +++ b/calc/ops.py
    @@ -1,2 +1,2 @@
     def add(a, b):
    -    return a - b
    +    return a + b
    """)
TEST_CMD = (
    "python3 -m pytest -p no:cacheprovider -o junit_family=xunit1 --junitxml={junit_xml} tests"
)


def task_yaml(task_id: str, **overrides: object) -> dict[str, object]:
    spec: dict[str, object] = {
        "id": task_id,
        "image": f"evaluator-test/{task_id}:1",
        "build": {"repo": "repo"},
        "problem_statement": "problem.md",
        "hidden_tests": "hidden",
        "gold_patch": "gold.patch",
        "test_command": TEST_CMD,
        "fail_to_pass": ["tests/test_hidden.py::test_add"],
        "pass_to_pass": ["tests/test_visible.py::test_zero", "tests/test_hidden.py::test_zero_hidden"],
    }
    spec.update(overrides)
    return spec


def write_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_task(set_dir: Path, task_id: str, *, gold: str = GOLD,
              hidden: dict[str, str] | None = None, **overrides: object) -> Path:
    d = set_dir / task_id
    write_files(d / "repo", REPO_FILES)
    # The task id in a comment keeps each task's hidden tests (and so its grade keys) distinct.
    write_files(d / "hidden", hidden or {k: f"# {task_id}\n{v}" for k, v in HIDDEN_FILES.items()})
    (d / "problem.md").write_text("add(2, 3) returns -1, expected 5.\n")
    (d / "gold.patch").write_text(gold)
    (d / "task.yaml").write_text(yaml.safe_dump(task_yaml(task_id, **overrides)))
    return d


def make_set(root: Path, name: str = "mini", task_ids: tuple[str, ...] = ("add-bug",),
             **set_fields: object) -> Path:
    set_dir = root / name
    set_dir.mkdir(parents=True)
    # No exploit gate unless a test asks for it (tests/gold, the exploit-gate e2e test): it
    # grades a dozen patches per valid task, which every other gold run would pay for.
    spec = {"name": name, "gold_reps": 2, "exploits": [], **set_fields}
    (set_dir / "set.yaml").write_text(yaml.safe_dump(spec))
    for tid in task_ids:
        make_task(set_dir, tid)
    return set_dir


def unavailable(reason: str) -> NoReturn:
    """A real part a test needs is missing: skip on a workstation, fail under CI=true, where a
    skip would hide a broken setup."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every xdist worker of this run sees (their base temps' parent), or this
    session's base temp without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
