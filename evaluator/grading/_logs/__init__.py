"""Per-test results read from a runner's log, for runners that write no JUnit report.

Each reader sees only the output between the harness's per-grade markers and maps test id ->
one of "passed", "failed", "error", "skipped", "xfailed". Nothing here imports the grader.
"""

from evaluator.grading._logs._django import DjangoReader, normalize
from evaluator.grading._logs._official import official_keeps
from evaluator.grading._logs._protocol import (
    ERROR,
    FAILED,
    PASSED,
    SKIPPED,
    STATUSES,
    XFAILED,
    ResultsError,
    ResultsReader,
)
from evaluator.grading._logs._pytest_log import PytestLogReader
from evaluator.grading._logs._registry import READERS, reader_for
from evaluator.grading._logs._sympy import SympyReader

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
]
