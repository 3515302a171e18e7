"""A subject's result on a task: its patch graded once per grade key, the policy's findings, and
one rule that decides `resolved`, `flagged`, `failed` or `policy`, for attempts, predictions and
the gold gate's exploit patches alike; the result record; a person's reviews of flagged ones."""

from evaluator.result._record import (
    Graded,
    ResultRecord,
    flag_lines,
    grade_patch,
    record_result,
    result_key,
)
from evaluator.result._review import ACCEPT, REJECT, Review, Reviews
from evaluator.result._rule import (
    ENVIRONMENT_SENSITIVE,
    FAILED,
    FLAGGED,
    POLICY,
    RESOLVED,
    STATUSES,
    Findings,
    decide,
    findings,
)

__all__ = [
    "ACCEPT",
    "ENVIRONMENT_SENSITIVE",
    "FLAGGED",
    "REJECT",
    "Review",
    "Reviews",
    "FAILED",
    "POLICY",
    "RESOLVED",
    "STATUSES",
    "Findings",
    "Graded",
    "flag_lines",
    "ResultRecord",
    "decide",
    "findings",
    "grade_patch",
    "record_result",
    "result_key",
]
