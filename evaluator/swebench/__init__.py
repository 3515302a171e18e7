"""SWE-bench in and out, a format adapter: instance rows and task repos imported as task sets,
leaderboard submission folders read (their published outcomes: evaluator.submissions),
predictions files read (graded as subjects, see evaluator.subjects), and results exported as
predictions and report.json."""

from evaluator.swebench._cli import add_export_command, add_import_command
from evaluator.swebench._command import Command, Unmapped, command_for, results_for
from evaluator.swebench._hidden import BaseFiles, GitCloneFiles, ImageFiles, hidden_files
from evaluator.swebench._import import (
    ImportOptions,
    RowReport,
    default_image,
    import_rows,
    task_id_for,
)
from evaluator.swebench._instances import META_FILE, instance_id, instance_tasks
from evaluator.swebench._rows import Row, id_list, read_predictions, read_rows
from evaluator.swebench._submission import Submission, read_submission

__all__ = [
    "META_FILE",
    "BaseFiles",
    "Command",
    "GitCloneFiles",
    "ImageFiles",
    "ImportOptions",
    "Row",
    "RowReport",
    "Submission",
    "Unmapped",
    "add_export_command",
    "add_import_command",
    "command_for",
    "default_image",
    "hidden_files",
    "id_list",
    "instance_id",
    "instance_tasks",
    "read_predictions",
    "import_rows",
    "read_rows",
    "read_submission",
    "results_for",
    "task_id_for",
]
