"""Grading: apply a patch in a fresh sandbox, restore tests as pinned, read what the run reported
(a JUnit report, or a runner's log through one of the `_logs` readers)."""

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
    graded_part,
)
from evaluator.grading._ids import describe as describe_ids
from evaluator.grading._junit import ReportError, node_id, parse_junit
from evaluator.grading._logs import (
    ERROR,
    FAILED,
    PASSED,
    READERS,
    SKIPPED,
    STATUSES,
    XFAILED,
    DjangoReader,
    PytestLogReader,
    ResultsError,
    ResultsReader,
    SympyReader,
    normalize,
    official_keeps,
    reader_for,
)
from evaluator.grading._patchfilter import opaque_reason, unpack_sources
from evaluator.grading._patchfilter import sections as patch_sections
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._record import GradeRecord, grade_once
from evaluator.grading._spec import GradeSpec, grade_key, grade_spec, hidden_test_bytes
from evaluator.grading._why import NOT_RUN, why_not

__all__ = [
    "ERROR",
    "FAILED",
    "PASSED",
    "READERS",
    "SKIPPED",
    "STATUSES",
    "XFAILED",
    "DjangoReader",
    "PytestLogReader",
    "ResultsError",
    "ResultsReader",
    "SympyReader",
    "normalize",
    "official_keeps",
    "reader_for",
    "INCONSISTENT",
    "NOT_RUN",
    "NO_REPORT",
    "PATCH_FAILED",
    "PATCH_REJECTED",
    "RESOLVED",
    "TAMPERED",
    "UNRESOLVED",
    "DockerGrader",
    "GradeOutcome",
    "GradeRecord",
    "GradeSpec",
    "Grader",
    "ReportError",
    "grade_key",
    "graded_part",
    "grade_once",
    "grade_spec",
    "hidden_test_bytes",
    "is_protected",
    "opaque_reason",
    "parse_junit",
    "patch_paths",
    "patch_sections",
    "node_id",
    "unpack_sources",
    "unsafe_paths",
    "describe_ids",
    "why_not",
]
