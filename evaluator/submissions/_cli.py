"""`evaluator agreement --set S [--subject NAME] [--json]`: each imported submission's table."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evaluator.errors import EvalError
from evaluator.settings import add_path_options, add_set_option, settings
from evaluator.store import Store
from evaluator.submissions._check import tables
from evaluator.submissions._text import table_lines


def add_commands(sub: Any) -> None:
    p = sub.add_parser("agreement", help="a submission's published outcomes beside our grades, "
                                         "per instance, with the cause of each difference")
    add_set_option(p)
    p.add_argument("--subject", help="one imported submission (default: every one on the set)")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    p.add_argument("--differences", action="store_true", help="list only the instances that "
                   "differ (or could not be compared)")
    add_path_options(p, only=("store", "tasks_root", "lock_dir"))
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        found = tables(args.set, Store(settings.store), settings.tasks_root, settings.lock_dir,
                       args.subject)
    except EvalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([t.to_dict() for t in found], indent=2, sort_keys=True))
        return 0
    if not found:
        print(f"no submission is imported on {args.set!r}: `evaluator import submission FOLDER "
              f"--set {args.set}` brings one in")
        return 0
    for t in found:
        print("\n".join(table_lines(t, every=not args.differences)))
    return 0
