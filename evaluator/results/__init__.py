"""Per-test results read from a runner's log, for runners that write no JUnit report.

Each reader sees only the output between the harness's per-grade markers and maps test id ->
one of "passed", "failed", "error", "skipped", "xfailed". Nothing here imports the grader.
"""

from evaluator.results._django import DjangoReader, normalize
from evaluator.results._protocol import (
    ERROR,
    FAILED,
    PASSED,
    SKIPPED,
    STATUSES,
    XFAILED,
    ResultsError,
    ResultsReader,
)
from evaluator.results._pytest_log import PytestLogReader
from evaluator.results._registry import READERS, reader_for
from evaluator.results._sympy import SympyReader

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
    "reader_for",
]
