"""`evaluator predictions grade FILE --set S`: a SWE-bench predictions file graded as subjects,
in a pool of processes on this machine's sandboxes, through the same grade keys and store as
`doit eval`; each `model_name_or_path` is then a subject of `doit report:<set>`."""

from __future__ import annotations

import argparse
import multiprocessing as mp
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from evaluator.console import say
from evaluator.errors import EvalError
from evaluator.grading import DockerGrader, GradeRecord, why_not
from evaluator.lock import Lock
from evaluator.pipeline import _context as ctx
from evaluator.settings import add_path_options, add_set_option, settings
from evaluator.store import Store
from evaluator.subjects import (
    PlannedPrediction,
    grade_prediction,
    identity,
    plan_predictions,
    write_manifest,
)
from evaluator.swebench import instance_tasks, read_predictions
from evaluator.taskset import TaskSet


def add_commands(sub: Any) -> None:
    pred = sub.add_parser("predictions", help="grade model patches without running an agent")
    acts = pred.add_subparsers(dest="action", required=True, metavar="action")
    g = acts.add_parser("grade", help="grade a SWE-bench predictions file on a locked, gated set")
    g.add_argument("file", type=Path, help="predictions: JSONL, a JSON list, or an object by id")
    add_set_option(g, help="the task set the instances were imported into")
    g.add_argument("--jobs", type=int, default=None, help="grades at once (default "
                   "$EVAL_SANDBOXES or 4)")
    add_path_options(g, only=("store", "tasks_root", "lock_dir"))
    g.set_defaults(run=_grade)


def _grade(args: argparse.Namespace) -> int:
    refused: list[str] = []  # rows that are not predictions: named, the others graded
    try:
        preds = read_predictions(args.file, refused)
        loaded = ctx.load(args.set)
        if loaded.error is not None:
            raise loaded.error
        assert loaded.task_set is not None and loaded.lock is not None
        ts, lock, store = loaded.task_set, loaded.lock, ctx.store()
        planned, problems = plan_predictions(preds, ts, lock, store, instance_tasks(ts))
    except EvalError as exc:
        say(f"error: {exc}")
        return 2
    for line in [*refused, *problems]:
        say(f"not graded: {line}")
    if not planned:
        say(f"nothing to grade on {ts.name!r}: no prediction names a valid task"
            + (f"; run `doit gold:{ts.name}` first" if any("gold gate" in p for p in problems)
                 else ""))
        return 1
    failed = grade_planned(ts, lock, store, planned, args.jobs)
    if failed:
        say(f"{failed} prediction(s) not graded (infra errors); run the command again")
        return 1
    say(f"done; `doit report:{ts.name}` shows each model_name_or_path as a subject")
    if refused:
        say(f"{len(refused)} row(s) of {args.file} refused (named above); fix them and run the "
            "command again (what is graded stays graded)")
        return 1
    return 0


def grade_planned(ts: TaskSet, lock: Lock, store: Store, planned: list[PlannedPrediction],
                  jobs: int | None) -> int:
    """Grade what of `planned` has no result yet, `jobs` at a time, printing a line per
    prediction, then record each subject's manifest (once all graded); returns how many were
    left ungraded by infra errors (run again to retry them)."""
    idents = {s: identity(s, ts.name, planned) for s in sorted({p.prediction.subject
                                                                for p in planned})}
    todo = [pp for pp in planned if not store.has("result", pp.result_key)]
    say(f"{len(planned)} prediction(s) of {len(idents)} subject(s) on {ts.name!r}: "
        f"{len(planned) - len(todo)} already graded, {len(todo)} to grade")
    global _JOBS
    _JOBS = (ts, lock, idents, todo)
    # Processes, not threads: the store's SQLite index and the Docker client are per process
    # (built lazily by pid in each forked worker, as doit's workers do).
    failed = 0
    if todo:
        with ProcessPoolExecutor(max_workers=max(1, jobs or settings.sandboxes),
                                 mp_context=mp.get_context("fork")) as pool:
            for pp, (status, error) in zip(todo, pool.map(_grade_one, range(len(todo))),
                                           strict=True):
                failed += status is None
                say(f"{pp.prediction.subject:30} {pp.prediction.instance_id:40} "
                    + (status or f"infra error, retried next run: {error}"))
    if not failed:
        for subject, ident in idents.items():
            write_manifest(store, ts.name, subject, ident, planned)
    return failed


_JOBS: tuple[Any, ...] = ()


def _grade_one(i: int) -> tuple[str | None, str]:
    ts, lock, idents, todo = _JOBS
    pp = todo[i]
    try:
        with ctx.sandbox_slots().acquire():
            rec = grade_prediction(ctx.store(), DockerGrader(ctx.sandboxes()), ts, lock, pp,
                                   idents[pp.prediction.subject])
        why = why_not(ctx.store().read(GradeRecord, rec.grade))
        return rec.status + (f" ({why})" if why else ""), ""
    except EvalError as exc:
        return None, str(exc)
