"""Exports: stored results written in other tools' formats (`python -m evaluator export ...`)."""

from evaluator.export._find import find_attempt
from evaluator.export._group import EXPORTERS, add_commands
from evaluator.export._traj import EXIT_STATUS, TRAJECTORY_FORMAT, export_traj, to_traj

__all__ = [
    "EXIT_STATUS",
    "EXPORTERS",
    "TRAJECTORY_FORMAT",
    "add_commands",
    "export_traj",
    "find_attempt",
    "to_traj",
]
