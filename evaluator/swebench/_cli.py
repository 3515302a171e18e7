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
    p.add_argument("--user", default="root", help="user the sandboxes run as (default root, "
                   "as SWE-bench images are built; every capability is dropped either way)")
    p.add_argument("--no-build", action="store_true", help="never build a task repo's "
                   "Dockerfile; use the row's image")
    p.add_argument("--build-network", default="none", help="network of a Dockerfile's RUN "
                   "steps (default none; `host` or `bridge` where they download)")
    p.add_argument("--replace", action="store_true", help="overwrite tasks that differ")
    p.add_argument("--report", type=Path, help="also write the per-row report as JSON here")
    p.set_defaults(run=_import)


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
