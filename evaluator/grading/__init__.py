"""Grading: apply a patch in a fresh sandbox, restore tests as pinned, run every test of their
files under fresh names beside the grade's twins, read what the run reported (a JUnit report,
or a runner's log through one of the `_logs` readers), weigh each check's evidence, and look
again in another fresh sandbox."""

from evaluator.grading._calibrate import calibrate, calibrate_now, calibration_grades
from evaluator.grading._evidence import FLAG, NOTE, STRONG, WEAK, Check, Evidence, judge
from evaluator.grading._grader import DockerGrader
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
from evaluator.grading._outcome import (
    INCONSISTENT,
    NO_REPORT,
    PATCH_FAILED,
    PATCH_REJECTED,
    RESOLVED,
    TAMPERED,
    UNRESOLVED,
    GradeOutcome,
    Grader,
)
from evaluator.grading._patchfilter import opaque_reason, unpack_sources
from evaluator.grading._patchfilter import sections as patch_sections
from evaluator.grading._paths import is_protected, patch_paths, unsafe_paths
from evaluator.grading._pool import CalibrationRecord, Pool
from evaluator.grading._record import GradeRecord, grade_once, with_pool
from evaluator.grading._setup import graded_part
from evaluator.grading._spec import (
    GradeSpec,
    calibration_key,
    grade_key,
    grade_spec,
    hidden_test_bytes,
)
from evaluator.grading._why import NOT_RUN, why_not

__all__ = [
    "FLAG",
    "NOTE",
    "STRONG",
    "WEAK",
    "CalibrationRecord",
    "Check",
    "Evidence",
    "Pool",
    "calibrate",
    "calibrate_now",
    "calibration_grades",
    "calibration_key",
    "judge",
    "with_pool",
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
