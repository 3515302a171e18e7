"""Typed records with placeholder provenance, for tests that only care about an outcome."""

from __future__ import annotations

from typing import Any

from evaluator.grading import RESOLVED, UNRESOLVED, GradeRecord


def grade_record(outcome: str | bool, **tests: str) -> GradeRecord:
    """A grade of `outcome` (True/False: resolved/unresolved) with these per-test statuses."""
    if isinstance(outcome, bool):
        outcome = RESOLVED if outcome else UNRESOLVED
    fields: dict[str, Any] = {
        "outcome": outcome, "resolved": outcome == RESOLVED, "status": outcome, "tests": tests,
        "task_set": "set", "task_id": "task", "subject": "gold", "patch": "0" * 64,
        "image": "image@sha256:" + "0" * 64, "grader_version": "grader", "lock_version": "lock"}
    return GradeRecord(**fields)
