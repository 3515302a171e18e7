"""`evaluator import submission FOLDER --set S`: a leaderboard submission as its authors published
it, brought in as a predictions subject with its published outcomes kept read-only beside it,
graded (incrementally: a prediction already graded under the same keys is not graded again),
and its agreement table printed.

The set must hold the submission's instances (`evaluator import swebench`), locked and gated.
`--no-grade` only stores the published outcomes; `evaluator agreement --set S` prints the
table again at any time, from the store alone.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evaluator.console import say
from evaluator.errors import EvalError
from evaluator.gold import verdicts
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._predictions import grade_planned
from evaluator.settings import add_path_options, add_set_option
from evaluator.subjects import plan_predictions
from evaluator.submissions import agreement, table_lines, write_published
from evaluator.swebench import instance_tasks, read_submission


def add_import_command(kinds: Any) -> None:
    p = kinds.add_parser("submission", help="a published leaderboard submission: its "
                         "outcomes kept, its predictions graded, the two set side by side")
    p.add_argument("folder", type=Path, help="the submission's folder (all_preds.jsonl or "
                   "preds.json; results/results.json and logs/<instance_id>/ where published)")
    add_set_option(p, help="the task set its instances were imported into")
    p.add_argument("--name", help="the subject it is graded and shown as (default: the "
                   "folder's name, e.g. 20240620_sweagent_claude3.5sonnet)")
    p.add_argument("--split", help="the split it was submitted to (default: the parent "
                   "folder's name when it is one: lite, verified, test ...)")
    p.add_argument("--no-grade", action="store_true", help="store the published outcomes "
                   "only; grade later by running the command again without it")
    p.add_argument("--all-rows", action="store_true", help="print every instance, not only "
                   "those that differ or could not be compared")
    p.add_argument("--jobs", type=int, default=None, help="grades at once (default "
                   "$EVAL_SANDBOXES or 4)")
    add_path_options(p, only=("store", "tasks_root", "lock_dir"))
    p.set_defaults(run=_import)


def _import(args: argparse.Namespace) -> int:
    try:
        sub = read_submission(args.folder, args.name, args.split)
        loaded = ctx.load(args.set)
        if loaded.error is not None:
            raise loaded.error
        assert loaded.task_set is not None and loaded.lock is not None
        ts, lock, store = loaded.task_set, loaded.lock, ctx.store()
        by_instance = instance_tasks(ts)
        record = write_published(store, sub.record(
            ts.name, {i: t.id for i, t in by_instance.items()}, store.put_blob))
    except EvalError as exc:
        say(f"error: {exc}")
        return 2
    said = sum(e.resolved is not None for e in record.entries)
    outside = sorted(e.instance_id for e in record.entries if e.task_id is None)
    say(f"{sub.name}: {len(sub.predictions)} prediction(s); published outcomes of {said} of "
        f"{len(record.entries)} instance(s), from {', '.join(sub.shape)}; kept read-only "
        f"(record {record.key[:16]})")
    if outside:
        say(f"{len(outside)} instance(s) are not tasks of {ts.name!r}, so not graded: "
            + ", ".join(outside[:8]) + (" ..." if len(outside) > 8 else ""))
    failed = 0
    if not args.no_grade:
        planned, problems = plan_predictions(
            [p for p in sub.predictions if p.instance_id in by_instance], ts, lock, store,
            by_instance)
        for line in problems:
            say(f"not graded: {line}")
        failed = grade_planned(ts, lock, store, planned, args.jobs) if planned else 0
        if failed:
            say(f"{failed} prediction(s) not graded (infra errors); run the command again")
    table = agreement(store, ts, lock, verdicts(store, ts, lock), record)
    say("\n".join(table_lines(table, every=args.all_rows)))
    return 1 if failed else 0
