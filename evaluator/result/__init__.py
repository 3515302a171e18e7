"""A subject's result on a task: its patch graded once per grade key, the policy's findings, and
one rule that decides `resolved`, `failed` or `policy`, for attempts, predictions and the gold
gate's exploit patches alike; the result record."""

from evaluator.result._record import (
    Graded,
    ResultRecord,
    grade_patch,
    record_result,
    result_key,
)
from evaluator.result._rule import (
    FAILED,
    POLICY,
    RESOLVED,
    STATUSES,
    Findings,
    decide,
    findings,
)

__all__ = [
    "FAILED",
    "POLICY",
    "RESOLVED",
    "STATUSES",
    "Findings",
    "Graded",
    "ResultRecord",
    "decide",
    "findings",
    "grade_patch",
    "record_result",
    "result_key",
]
