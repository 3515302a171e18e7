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
from evaluator.swebench._predictions import (
    PlannedPrediction,
    Prediction,
    grade_prediction,
    instance_tasks,
    plan_predictions,
    read_predictions,
)
from evaluator.swebench._rows import Row, id_list, read_rows
from evaluator.swebench._subjects import Subject, subject_cells, write_manifest
from evaluator.swebench._subjects import subjects as prediction_subjects

__all__ = [
    "META_FILE",
    "BaseFiles",
    "Command",
    "PlannedPrediction",
    "Prediction",
    "Subject",
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
    "grade_prediction",
    "id_list",
    "instance_tasks",
    "plan_predictions",
    "prediction_subjects",
    "read_predictions",
    "subject_cells",
    "write_manifest",
    "import_rows",
    "read_rows",
    "results_for",
    "task_id_for",
]
