"""Policy checks (cheat detection) applied to an attempt before it can count as resolved, and
flags (evidence for a person) on the Python a patch adds."""

from evaluator.policy._ast import FATAL, Finding, scan_patch
from evaluator.policy._checks import (
    DIGS_GIT_HISTORY,
    READS_LEAK_PATHS,
    TAMPERS_WITH_RUNNER,
    TOUCHES_HIDDEN_TESTS,
    TOUCHES_TEST_CONFIG,
    TOUCHES_TESTS,
    Violation,
    check_patch,
    check_trajectory,
)

__all__ = [
    "DIGS_GIT_HISTORY",
    "FATAL",
    "READS_LEAK_PATHS",
    "TAMPERS_WITH_RUNNER",
    "TOUCHES_HIDDEN_TESTS",
    "TOUCHES_TESTS",
    "TOUCHES_TEST_CONFIG",
    "Finding",
    "Violation",
    "check_patch",
    "check_trajectory",
    "scan_patch",
]
