"""`evaluator import swebench FILE --set S` and `evaluator export swebench --set S --agent A`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from evaluator.errors import EvalError
from evaluator.gold import verdicts
from evaluator.lock import load_locked
from evaluator.sandbox import docker_client
from evaluator.settings import add_path_options, add_set_option, settings
from evaluator.store import Store
from evaluator.subjects import prediction_subjects as subjects
from evaluator.submissions import agreement, published
from evaluator.swebench._build import DockerfileBuilder
from evaluator.swebench._command import DEFAULT_SETUP
from evaluator.swebench._export import agent_outcomes, export, subject_outcomes
from evaluator.swebench._hidden import GitCloneFiles, ImageFiles
from evaluator.swebench._import import ImportOptions, import_rows
from evaluator.swebench._rows import read_rows
from evaluator.taskset import load_task_set


def add_import_command(kinds: Any) -> None:
    """`import swebench`, registered on the `import` group's subparsers (made by
    `evaluator.pipeline`, which adds `import submission` beside it)."""
    p = kinds.add_parser("swebench", help="SWE-bench rows (JSON, JSONL) or a 5.x task repo")
    p.add_argument("source", type=Path, help="instances file (.json/.jsonl) or task repo folder")
    add_set_option(p, help="task set to write: tasks/<set>/")
    add_path_options(p, only=("tasks_root",))
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


def _import(args: argparse.Namespace) -> int:
    try:
        rows = read_rows(args.source)
        client = None if args.repo_dir and args.no_build else _docker()
        opts = ImportOptions(set_name=args.set, tasks_root=settings.tasks_root,
                             setup=DEFAULT_SETUP if args.setup is None else args.setup,
                             user=args.user, image_template=args.image_template,
                             replace=args.replace)
        if args.repo_dir:
            clone = GitCloneFiles(args.repo_dir)
            opts.base_files = lambda image: clone
        elif client is not None:
            opts.base_files = lambda image: ImageFiles(client, image, opts.workdir)
        if client is not None and not args.no_build:
            opts.build = DockerfileBuilder(client, args.build_network)
        reports = import_rows(rows, opts)
    except EvalError as exc:
        print(f"error: {exc}")
        return 2
    for r in reports:
        print(r.line())
    done = sum(r.status != "skipped" for r in reports)
    if done:
        print(f"{done} of {len(reports)} row(s) in tasks/{args.set}; next: `doit lock:{args.set}` "
              f"then `doit gold:{args.set}`")
    else:
        print(f"no row imported, so nothing was written to tasks/{args.set}: see each row's "
              "line above for what to fix")
    if args.report:
        args.report.write_text(json.dumps([r.__dict__ for r in reports], indent=2) + "\n")
    return 0 if done == len(reports) else 1


def _docker() -> Any:
    return docker_client()


def add_export_command(formats: Any) -> None:
    """`export swebench`: registered in the export group (evaluator/export/_group.py)."""
    p = formats.add_parser("swebench", help="predictions.jsonl, report.json, summary.json and "
                           "instances.jsonl, as SWE-bench writes them (and agreement.json for "
                           "an imported submission)")
    add_set_option(p)
    p.add_argument("--agent", required=True, help="an agent of evals/<set>.yaml, or a graded "
                   "predictions subject (its model_name_or_path)")
    p.add_argument("--sample", type=int, default=0, help="which sample of an agent (default 0)")
    p.add_argument("--out", type=Path, required=True, help="folder to write into")
    p.add_argument("--no-instances", action="store_true", help="skip instances.jsonl (it "
                   "reads base files from each task's image)")
    add_path_options(p)
    p.set_defaults(run=_export)


def _export(args: argparse.Namespace) -> int:
    try:
        ts = load_task_set(args.set, settings.tasks_root)
        lock, store = load_locked(ts, str(settings.lock_dir)), Store()
        if args.agent in subjects(store, ts.name):
            outcomes = subject_outcomes(store, ts, lock, args.agent)
        else:
            outcomes = agent_outcomes(store, ts, lock, args.agent, args.sample,
                                      settings.evals_root, settings.agents_root)
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
        if (record := published(store, ts.name).get(args.agent)) is not None:
            # An imported submission: its published outcomes beside ours, as the site shows.
            table = agreement(store, ts, lock, verdicts(store, ts, lock), record)
            (args.out / "agreement.json").write_text(
                json.dumps(table.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except EvalError as exc:
        print(f"error: {exc}")
        return 2
    print(f"{args.out}: {summary['resolved_instances']} of {summary['submitted_instances']} "
          f"submitted instance(s) resolved ({summary['total_instances']} in the set)")
    return 0
