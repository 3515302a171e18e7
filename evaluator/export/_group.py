"""`python -m evaluator export <format> ...`: one subcommand per format, registered here.

Adding a format is one function in `EXPORTERS`: it receives the group's argparse subparsers
object, adds its subparser (`sub.add_parser("mlflow", help=...)`) and sets `run` to a function
of the parsed arguments that returns the exit code, as the top-level commands do. Import the
exporter's own module inside that function, so that `--help` stays fast and an exporter's
dependencies load only when it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _traj(sub: Any) -> None:
    from evaluator.export._traj import add_command

    add_command(sub)


def _mlflow(sub: Any) -> None:
    from evaluator.tracking import add_command

    add_command(sub)


def _swebench(sub: Any) -> None:
    from evaluator.swebench._cli import add_export_command

    add_export_command(sub)


EXPORTERS: tuple[Callable[[Any], None], ...] = (_traj, _mlflow, _swebench)


def add_commands(sub: Any) -> None:
    """Register the `export` group on the top-level subparsers object."""
    p = sub.add_parser("export", help="write stored results in another tool's format")
    formats = p.add_subparsers(dest="format", required=True, metavar="format")
    for register in EXPORTERS:
        register(formats)
