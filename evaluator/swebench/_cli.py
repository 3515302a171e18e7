"""`python -m evaluator import swebench FILE --set S` and `predictions grade FILE --set S`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evaluator.errors import EvalError


def add_commands(sub: Any) -> None:
    imp = sub.add_parser("import", help="bring tasks in from another benchmark's format")
    kinds = imp.add_subparsers(dest="kind", required=True, metavar="format")
    p = kinds.add_parser("swebench", help="SWE-bench rows (JSON, JSONL) or a 5.x task repo")
    p.add_argument("source", type=Path, help="instances file (.json/.jsonl) or task repo folder")
    p.add_argument("--set", required=True, help="task set to write: tasks/<set>/")
    p.add_argument("--tasks", type=Path, default=None, help="tasks root (default $EVAL_TASKS "
                   "or tasks)")
    p.add_argument("--repo-dir", type=Path, help="a local clone to read base files from "
                   "(default: from each row's image on the Docker engine)")
    p.add_argument("--image-template", help="image of rows without one, {instance_id} filled "
                   "in (default: SWE-bench's official image name)")
    p.add_argument("--setup", default=None, help="shell run before the tests of rows without "
                   "an eval_script (default: activate the testbed conda environment)")
    p.add_argument("--user", default=None, help="user the sandboxes run as (default: the "
                   "row's `user`, else root, as SWE-bench images are built; every capability is "
                   "dropped either way)")
    p.add_argument("--no-build", action="store_true", help="never build a task repo's "
                   "Dockerfile; use the row's image")
    p.add_argument("--build-network", default="none", help="network of a Dockerfile's RUN "
                   "steps (default none; `host` or `bridge` where they download)")
    p.add_argument("--replace", action="store_true", help="overwrite tasks that differ")
    p.add_argument("--report", type=Path, help="also write the per-row report as JSON here")
    p.set_defaults(run=_import)

    pred = sub.add_parser("predictions", help="grade model patches without running an agent")
    acts = pred.add_subparsers(dest="action", required=True, metavar="action")
    g = acts.add_parser("grade", help="grade a SWE-bench predictions file on a locked, gated set")
    g.add_argument("file", type=Path, help="predictions: JSONL, a JSON list, or an object by id")
    g.add_argument("--set", required=True, help="the task set the instances were imported into")
    g.add_argument("--jobs", type=int, default=None, help="grades at once (default "
                   "$EVAL_SANDBOXES or 4)")
    g.set_defaults(run=_grade)


def _import(args: argparse.Namespace) -> int:
    from evaluator.pipeline._context import tasks_root
    from evaluator.swebench._command import DEFAULT_SETUP
    from evaluator.swebench._hidden import GitCloneFiles, ImageFiles
    from evaluator.swebench._import import ImportOptions, import_rows
    from evaluator.swebench._rows import read_rows

    try:
        rows = read_rows(args.source)
        client = None if args.repo_dir and args.no_build else _docker()
        opts = ImportOptions(set_name=args.set, tasks_root=args.tasks or tasks_root(),
                             setup=DEFAULT_SETUP if args.setup is None else args.setup,
                             user=args.user, image_template=args.image_template,
                             replace=args.replace)
        if args.repo_dir:
            clone = GitCloneFiles(args.repo_dir)
            opts.base_files = lambda image: clone
        elif client is not None:
            opts.base_files = lambda image: ImageFiles(client, image, opts.workdir)
        if client is not None and not args.no_build:
            from evaluator.swebench._build import DockerfileBuilder

            opts.build = DockerfileBuilder(client, args.build_network)
        reports = import_rows(rows, opts)
    except EvalError as exc:
        print(f"error: {exc}")
        return 2
    for r in reports:
        print(r.line())
    done = sum(r.status != "skipped" for r in reports)
    print(f"{done} of {len(reports)} row(s) in tasks/{args.set}; next: `doit lock:{args.set}` "
          f"then `doit gold:{args.set}`")
    if args.report:
        args.report.write_text(json.dumps([r.__dict__ for r in reports], indent=2) + "\n")
    return 0 if done == len(reports) else 1


def _docker() -> Any:
    from evaluator.sandbox import docker_client

    return docker_client()


def _grade(args: argparse.Namespace) -> int:
    import multiprocessing as mp
    import os
    from concurrent.futures import ProcessPoolExecutor

    from evaluator.pipeline import _context as ctx
    from evaluator.swebench._predictions import (
        identity,
        plan_predictions,
        read_predictions,
    )
    from evaluator.swebench._subjects import write_manifest

    try:
        preds = read_predictions(args.file)
        loaded = ctx.load(args.set)
        if loaded.error is not None:
            raise loaded.error
        assert loaded.task_set is not None and loaded.lock is not None
        ts, lock, store = loaded.task_set, loaded.lock, ctx.store()
        planned, problems = plan_predictions(preds, ts, lock, store)
    except EvalError as exc:
        print(f"error: {exc}")
        return 2
    for line in problems:
        print(f"not graded: {line}")
    if not planned:
        print(f"nothing to grade on {ts.name!r}: no prediction names a valid task"
              + (f"; run `doit gold:{ts.name}` first" if any("gold gate" in p for p in problems)
                 else ""))
        return 1
    idents = {s: identity(s, ts.name, planned) for s in sorted({p.prediction.subject
                                                                for p in planned})}
    todo = [pp for pp in planned if not store.has("result", pp.result_key)]
    print(f"{len(planned)} prediction(s) of {len(idents)} subject(s) on {ts.name!r}: "
          f"{len(planned) - len(todo)} already graded, {len(todo)} to grade")
    global _JOBS
    _JOBS = (ts, lock, idents, todo)
    jobs = max(1, args.jobs or int(os.environ.get("EVAL_SANDBOXES", "4")))
    # Processes, not threads: the store's SQLite index and the Docker client are per process
    # (built lazily by pid in each forked worker, as doit's workers do).
    failed = 0
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("fork")) as pool:
        for pp, (status, error) in zip(todo, pool.map(_grade_one, range(len(todo))), strict=True):
            failed += status is None
            print(f"{pp.prediction.subject:30} {pp.prediction.instance_id:40} "
                  + (status or f"infra error, retried next run: {error}"))
    if failed:
        print(f"{failed} prediction(s) not graded (infra errors); run the command again")
        return 1
    for subject, ident in idents.items():
        write_manifest(store, ts.name, subject, ident, planned)
    print(f"done; `doit report:{ts.name}` shows each model_name_or_path as a subject")
    return 0


_JOBS: tuple[Any, ...] = ()


def _grade_one(i: int) -> tuple[str | None, str]:
    from evaluator.grading import DockerGrader
    from evaluator.pipeline import _context as ctx
    from evaluator.swebench._predictions import grade_prediction

    ts, lock, idents, todo = _JOBS
    pp = todo[i]
    try:
        with ctx.sandbox_slots().acquire():
            rec = grade_prediction(ctx.store(), DockerGrader(ctx.sandboxes()), ts, lock, pp,
                                   idents[pp.prediction.subject])
        return str(rec["status"]), ""
    except EvalError as exc:
        return None, str(exc)


def add_export_command(formats: Any) -> None:
    """`export swebench`: registered in the export group (evaluator/export/_group.py)."""
    p = formats.add_parser("swebench", help="predictions.jsonl, report.json, summary.json and "
                           "instances.jsonl, as SWE-bench writes them")
    p.add_argument("--set", required=True, help="the task set")
    p.add_argument("--agent", required=True, help="an agent of evals/<set>.yaml, or a graded "
                   "predictions subject (its model_name_or_path)")
    p.add_argument("--sample", type=int, default=0, help="which sample of an agent (default 0)")
    p.add_argument("--out", type=Path, required=True, help="folder to write into")
    p.add_argument("--no-instances", action="store_true", help="skip instances.jsonl (it "
                   "reads base files from each task's image)")
    p.set_defaults(run=_export)


def _export(args: argparse.Namespace) -> int:
    from evaluator.pipeline import _context as ctx
    from evaluator.pipeline._evaljobs import agents_root, evals_root
    from evaluator.swebench._export import agent_outcomes, export, subject_outcomes
    from evaluator.swebench._hidden import ImageFiles
    from evaluator.swebench._subjects import subjects

    try:
        loaded = ctx.load(args.set)
        if loaded.error is not None:
            raise loaded.error
        assert loaded.task_set is not None and loaded.lock is not None
        ts, lock, store = loaded.task_set, loaded.lock, ctx.store()
        if args.agent in subjects(store, ts.name):
            outcomes = subject_outcomes(store, ts, lock, args.agent)
        else:
            outcomes = agent_outcomes(store, ts, lock, args.agent, args.sample, evals_root(),
                                      agents_root())
        base = None
        if not args.no_instances:
            client = _docker()

            class _PerImage:
                def read(self, commit: str, paths: list[str]) -> dict[str, bytes]:
                    return images[commit].read(commit, paths)

            images = {lock.pin(t.id).base_commit: ImageFiles(client, lock.pin(t.id).image,
                                                             t.spec.workdir) for t in ts.tasks}
            base = _PerImage()
        summary = export(store, ts, lock, args.agent, outcomes, args.out, base)
    except EvalError as exc:
        print(f"error: {exc}")
        return 2
    print(f"{args.out}: {summary['resolved_instances']} of {summary['submitted_instances']} "
          f"submitted instance(s) resolved ({summary['total_instances']} in the set)")
    return 0
