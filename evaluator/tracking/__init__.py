"""Tracking: a task set's evaluation logged where teams keep their experiments (MLflow), one
run per agent version, idempotently (`python -m evaluator export mlflow`)."""

from evaluator.tracking._cli import add_command
from evaluator.tracking._mlflow import (
    EXPORT_TAG,
    ExportedRun,
    export_id,
    export_mlflow,
    run_metrics,
    run_params,
)

__all__ = ["EXPORT_TAG", "ExportedRun", "add_command", "export_id", "export_mlflow", "run_metrics",
           "run_params"]
