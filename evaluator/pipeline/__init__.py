"""The target graph: doit task generators over package code, and the commands that run grading.

    image_tasks   images:<set>  the images a set builds itself (missing or outdated ones only)
    lock_tasks    lock:<set>    pins into lock/<set>.lock
    gold_tasks    gold:<set>    gold and empty patches graded K times; a verdict per task
    eval_tasks    eval:<set>    an attempt and a grade target per planned attempt; a summary
    plan_tasks    plan:<set>    what eval would run and what it would cost

Each target is done when its record is in the store (`_context` opens the set, its lock, its
eval plan, the store and the executor once per process). `doit report:<set>` is
`evaluator.reports.report_tasks`. `add_commands` registers `quarantine` (attempts held after
repeated infra errors), `predictions grade` (a predictions file graded as subjects) and the
`import` group: `import swebench` (rows as a task set) and `import submission` (a published
leaderboard submission, graded, its published outcomes kept beside our grades).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
from typing import Any

from evaluator import sandbox
from evaluator.console import say
from evaluator.pipeline._context import asked, discover_sets
from evaluator.pipeline._evaljobs import eval_tasks, plan_tasks
from evaluator.pipeline._goldjobs import format_verdicts, gold_tasks
from evaluator.pipeline._lockjobs import image_tasks, lock_tasks
from evaluator.pipeline._predictions import add_commands as _add_predictions
from evaluator.pipeline._quarantine import add_commands as _add_quarantine
from evaluator.pipeline._reporter import QuietReporter
from evaluator.pipeline._submissions import add_import_command as _add_submission
from evaluator.settings import settings
from evaluator.swebench import add_import_command as _add_swebench


def doit_config() -> dict[str, Any]:
    """DOIT_CONFIG for dodo.py.

    The store decides what is done, so doit's own state file is private to one process: two
    doit processes never share it (a shared json/dbm file loses results), and losing it to a
    SIGKILL loses nothing.
    """
    # A setting no target could use is refused here, one line each, before any target is
    # loaded (it would otherwise surface as a traceback deep inside one).
    bad = settings.problems()
    for line in bad:
        say(f"error: {line}", err=True)
    if bad:
        raise SystemExit(2)
    # Without root, the daemonless backend's sandboxes need its user namespace: doit runs
    # again in it before any target is loaded.
    sandbox.enter_user_namespace("doit")
    dep_file = os.path.join(tempfile.gettempdir(), f"evaluator-doit-{os.getpid()}.sqlite")
    atexit.register(_remove, dep_file)
    return {
        "default_tasks": [],
        "reporter": QuietReporter,
        "continue": True,
        "backend": "sqlite3",
        "dep_file": dep_file,
    }


def add_commands(sub: Any) -> None:
    """The pipeline's own commands: `quarantine list|release`, `predictions grade` and the
    `import` group (`import swebench`, and `import submission`, which grades)."""
    _add_quarantine(sub)
    _add_predictions(sub)
    imp = sub.add_parser("import", help="bring tasks or a published submission in from "
                                        "another benchmark's format")
    kinds = imp.add_subparsers(dest="kind", required=True, metavar="format")
    _add_swebench(kinds)
    _add_submission(kinds)


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)


__all__ = [
    "QuietReporter",
    "add_commands",
    "asked",
    "discover_sets",
    "doit_config",
    "eval_tasks",
    "format_verdicts",
    "gold_tasks",
    "image_tasks",
    "lock_tasks",
    "plan_tasks",
]
