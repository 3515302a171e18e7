"""Grading: apply a patch in a fresh sandbox, restore tests as pinned, read a JUnit report."""

from evaluator.grading._grader import (
    INCONSISTENT,
    NO_REPORT,
    PATCH_FAILED,
    PATCH_REJECTED,
    RESOLVED,
    TAMPERED,
    UNRESOLVED,
    DockerGrader,
    GradeOutcome,
    Grader,
)
from evaluator.grading._junit import ReportError, node_id, parse_junit
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._spec import GradeSpec, grade_key, grade_spec, hidden_test_bytes

__all__ = [
    "INCONSISTENT",
    "NO_REPORT",
    "PATCH_FAILED",
    "PATCH_REJECTED",
    "RESOLVED",
    "TAMPERED",
    "UNRESOLVED",
    "DockerGrader",
    "GradeOutcome",
    "GradeSpec",
    "Grader",
    "ReportError",
    "grade_key",
    "grade_spec",
    "hidden_test_bytes",
    "is_protected",
    "parse_junit",
    "patch_paths",
    "node_id",
    "unsafe_paths",
]
