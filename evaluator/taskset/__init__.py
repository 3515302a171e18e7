"""Task sets as data: `tasks/<set>/set.yaml` plus one folder per task, validated strictly."""

from evaluator.taskset._load import Task, TaskSet, load_task_set
from evaluator.taskset._schema import BuildSpec, SandboxSpec, SetSpec, TaskSpec, field_docs

__all__ = [
    "BuildSpec",
    "SandboxSpec",
    "SetSpec",
    "Task",
    "TaskSet",
    "TaskSpec",
    "field_docs",
    "load_task_set",
]
