"""`evaluator export <format> ...`: one subcommand per format, registered here.

Adding a format is one function in `EXPORTERS`: it receives the group's argparse subparsers
object, adds its subparser (`sub.add_parser("mlflow", help=...)`) and sets `run` to a function
of the parsed arguments that returns the exit code, as the top-level commands do. Every
registrar runs whenever the command line is parsed, so an exporter whose dependencies are heavy
or optional imports them in its `run` function (the MLflow export does), not at registration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.export import _traj
from evaluator.swebench import add_export_command as _swebench
from evaluator.tracking import add_command as _mlflow

EXPORTERS: tuple[Callable[[Any], None], ...] = (_traj.add_command, _mlflow, _swebench)


def add_commands(sub: Any) -> None:
    """Register the `export` group on the top-level subparsers object."""
    p = sub.add_parser("export", help="write stored results in another tool's format")
    formats = p.add_subparsers(dest="format", required=True, metavar="format")
    for register in EXPORTERS:
        register(formats)
