"""SWE-bench in and out: instance rows and task repos imported as task sets, predictions graded
through the same grade targets and store, and results exported as predictions and report.json."""

from evaluator.swebench._cli import add_commands
from evaluator.swebench._command import Command, Unmapped, command_for, results_for
from evaluator.swebench._hidden import BaseFiles, GitCloneFiles, ImageFiles, hidden_files
from evaluator.swebench._import import (
    META_FILE,
    ImportOptions,
    RowReport,
    default_image,
    import_rows,
    task_id_for,
)
from evaluator.swebench._rows import Row, id_list, read_rows

__all__ = [
    "META_FILE",
    "BaseFiles",
    "Command",
    "GitCloneFiles",
    "ImageFiles",
    "ImportOptions",
    "Row",
    "RowReport",
    "Unmapped",
    "add_commands",
    "command_for",
    "default_image",
    "hidden_files",
    "id_list",
    "import_rows",
    "read_rows",
    "results_for",
    "task_id_for",
]
