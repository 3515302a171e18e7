"""Typed records with placeholder provenance, for tests that only care about an outcome."""

from __future__ import annotations

from typing import Any

from evaluator.grading import RESOLVED, UNRESOLVED, GradeRecord
from evaluator.result import ResultRecord


def grade_record(outcome: str | bool, **tests: str) -> GradeRecord:
    """A grade of `outcome` (True/False: resolved/unresolved) with these per-test statuses."""
    if isinstance(outcome, bool):
        outcome = RESOLVED if outcome else UNRESOLVED
    fields: dict[str, Any] = {
        "outcome": outcome, "resolved": outcome == RESOLVED, "status": outcome, "tests": tests,
        "task_set": "set", "task_id": "task", "subject": "gold", "patch": "0" * 64,
        "image": "image@sha256:" + "0" * 64, "grader_version": "grader", "lock_version": "lock"}
    return GradeRecord(**fields)


def result_record(resolved: bool) -> ResultRecord:
    """An agent's result, resolved or failed, on the placeholder task of `grade_record`."""
    status = "resolved" if resolved else "failed"
    return ResultRecord(
        task_set="set", task_id="task", subject="agent", status=status, resolved=resolved,
        attempt="a" * 64, grade="g" * 64, grade_outcome=RESOLVED if resolved else UNRESOLVED,
        agent_identity="identity", lock_version="lock", grader_version="grader")
