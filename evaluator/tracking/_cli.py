"""`python -m evaluator export mlflow --set S --tracking-uri URI [--experiment NAME]`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evaluator.errors import EvalError
from evaluator.reports import Sources
from evaluator.settings import add_path_options, add_set_option, settings
from evaluator.tracking._mlflow import export_mlflow


def add_command(sub: Any) -> None:
    """Register `mlflow` on the export group's subparsers object."""
    p = sub.add_parser("mlflow", help="log each agent's evaluation of a set as an MLflow run "
                                      "(again: the same runs are updated)")
    add_set_option(p, help="task set with an eval config")
    p.add_argument("--tracking-uri", default=None,
                   help="e.g. http://127.0.0.1:5000 (default: $MLFLOW_TRACKING_URI)")
    p.add_argument("--experiment", help="experiment name (default: evaluator/<set>)")
    add_path_options(p)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    args.tracking_uri = args.tracking_uri or settings.mlflow_tracking_uri
    if not args.tracking_uri:
        print("export mlflow: no tracking server: pass --tracking-uri or set "
              "MLFLOW_TRACKING_URI", file=sys.stderr)
        return 2
    sources = Sources.from_env()  # the path options are in force (`evaluator.__main__`)
    try:
        runs = export_mlflow(args.set, args.tracking_uri, experiment=args.experiment,
                             store=sources.store, tasks_root=sources.tasks_root,
                             lock_dir=sources.lock_dir, evals_root=sources.evals_root,
                             agents_root=sources.agents_root)
    except EvalError as exc:
        print(f"export mlflow of {args.set!r} refused: {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return 2
    for r in runs:
        print(f"{r.agent}: {'created' if r.created else 'updated'} run {r.run_id} "
              f"({r.export_id}) at {args.tracking_uri}")
    return 0
