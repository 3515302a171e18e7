"""A set whose tasks have the layouts users' repositories have (a package beside a tests folder,
tests inside the package, a src/ layout, Django's runner), locked without Docker, for the
exploit sample's tests."""

from __future__ import annotations

from pathlib import Path

import yaml

from evaluator.lock import Lock, lock_path, resolve_lock
from evaluator.taskset import TaskSet, load_task_set
from tests.helpers import make_set, make_task
from tests.lock.support import FakeResolver


def gold_for(path: str) -> str:
    return (f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n"
            " def add(a, b):\n-    return a - b\n+    return a + b\n")


def _hidden(path: str, tid: str) -> dict[str, str]:
    return {path: f"# {tid}\nfrom calc.ops import add\n\n\ndef test_add():\n"
                  "    assert add(2, 3) == 5\n"}


# (task id prefix, gold patch path, hidden test path, task.yaml overrides)
LAYOUTS = {
    "flat": ("calc/ops.py", "tests/test_hidden.py", {}),
    "inside": ("calc/ops.py", "calc/tests/test_hidden.py",
               {"fail_to_pass": ["calc/tests/test_hidden.py::test_add"], "pass_to_pass": []}),
    "src": ("src/calc/ops.py", "testing/test_hidden.py",
            {"fail_to_pass": ["testing/test_hidden.py::test_add"], "pass_to_pass": []}),
    "dj": ("calc/ops.py", "tests/calc_tests/tests.py",
           {"results": "django", "test_command": "./tests/runtests.py calc_tests",
            "fail_to_pass": ["test_add (calc_tests.tests.T)"], "pass_to_pass": []}),
}


def layered_set(root: Path, counts: dict[str, int], **set_fields: object) -> tuple[TaskSet, Lock]:
    """`counts[layout]` tasks of each layout of LAYOUTS (ids `<layout>-<n>`), locked."""
    set_dir = make_set(root / "tasks", "layers", (), **set_fields)
    for name, n in counts.items():
        for i in range(n):
            add_task(set_dir, name, i)
    return relock(root)


def add_task(set_dir: Path, name: str, i: int, **overrides: object) -> None:
    gold, hidden, more = LAYOUTS[name]
    tid = f"{name}-{i}"
    make_task(set_dir, tid, gold=gold_for(gold), hidden=_hidden(hidden, tid), **{**more, **overrides})


def relock(root: Path) -> tuple[TaskSet, Lock]:
    ts = load_task_set("layers", root / "tasks")
    lock = resolve_lock(ts, FakeResolver())
    path = lock_path("layers", root / "lock")
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(lock.to_json())
    return ts, lock


def set_field(root: Path, **fields: object) -> tuple[TaskSet, Lock]:
    path = root / "tasks" / "layers" / "set.yaml"
    path.write_text(yaml.safe_dump({**yaml.safe_load(path.read_text()), **fields}))
    return relock(root)
