"""`python -m evaluator export mlflow --set S --tracking-uri URI [--experiment NAME]`."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaluator.errors import EvalError

_SOURCES = (("store", "store", "$EVAL_STORE or .eval"), ("tasks", "tasks_root", "$EVAL_TASKS or tasks"),
            ("lock-dir", "lock_dir", "$EVAL_LOCK_DIR or lock"),
            ("evals", "evals_root", "$EVAL_EVALS or evals"),
            ("agents", "agents_root", "$EVAL_AGENTS or agents"))


def add_command(sub: Any) -> None:
    """Register `mlflow` on the export group's subparsers object."""
    p = sub.add_parser("mlflow", help="log each agent's evaluation of a set as an MLflow run "
                                      "(again: the same runs are updated)")
    p.add_argument("--set", dest="task_set", required=True, help="task set with an eval config")
    p.add_argument("--tracking-uri", default=os.environ.get("MLFLOW_TRACKING_URI"),
                   help="e.g. http://127.0.0.1:5000 (default: $MLFLOW_TRACKING_URI)")
    p.add_argument("--experiment", help="experiment name (default: evaluator/<set>)")
    for flag, _, what in _SOURCES:
        p.add_argument(f"--{flag}", help=f"default: {what}")
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    from evaluator.reports import Sources
    from evaluator.tracking._mlflow import export_mlflow

    if not args.tracking_uri:
        print("export mlflow: no tracking server: pass --tracking-uri or set "
              "MLFLOW_TRACKING_URI", file=sys.stderr)
        return 2
    given: dict[str, Any] = {field: Path(getattr(args, flag.replace("-", "_")))
                             for flag, field, _ in _SOURCES if getattr(args, flag.replace("-", "_"))}
    sources = replace(Sources.from_env(), **given)
    try:
        runs = export_mlflow(args.task_set, args.tracking_uri, experiment=args.experiment,
                             store=sources.store, tasks_root=sources.tasks_root,
                             lock_dir=sources.lock_dir, evals_root=sources.evals_root,
                             agents_root=sources.agents_root)
    except EvalError as exc:
        print(f"export mlflow of {args.task_set!r} refused: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return 2
    for r in runs:
        print(f"{r.agent}: {'created' if r.created else 'updated'} run {r.run_id} "
              f"({r.export_id}) at {args.tracking_uri}")
    return 0
