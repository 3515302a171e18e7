"""doit task generators: the target graph (images, lock, gold) over package code."""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
from typing import Any

from evaluator.pipeline._context import discover_sets
from evaluator.pipeline._evaljobs import eval_tasks, plan_tasks
from evaluator.pipeline._goldjobs import format_verdicts, gold_tasks
from evaluator.pipeline._lockjobs import image_tasks, lock_tasks
from evaluator.pipeline._reporter import QuietReporter
from evaluator.pipeline._slots import Slots


def doit_config() -> dict[str, Any]:
    """DOIT_CONFIG for dodo.py.

    The store decides what is done, so doit's own state file is private to one process: two
    doit processes never share it (a shared json/dbm file loses results), and losing it to a
    SIGKILL loses nothing.
    """
    dep_file = os.path.join(tempfile.gettempdir(), f"evaluator-doit-{os.getpid()}.sqlite")
    atexit.register(_remove, dep_file)
    return {
        "default_tasks": [],
        "reporter": QuietReporter,
        "continue": True,
        "backend": "sqlite3",
        "dep_file": dep_file,
    }


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


__all__ = [
    "QuietReporter",
    "Slots",
    "discover_sets",
    "doit_config",
    "eval_tasks",
    "format_verdicts",
    "gold_tasks",
    "image_tasks",
    "lock_tasks",
    "plan_tasks",
]
