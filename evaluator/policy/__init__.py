"""Policy checks (cheat detection) applied to an attempt before it can count as resolved: the
paths a patch touches and the commands an agent ran (`check_patch`, `check_trajectory`), and the
capability policy on the Python a patch adds to library code (`scan_patch`, documented rule by
rule in evaluator/policy/README.md): a finding whose reason is in `VIOLATIONS` makes the attempt
a policy failure; the others (`FLAGS`) are evidence for a person."""

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
from evaluator.policy._rules import FLAGS, UNREADABLE, VIOLATIONS

__all__ = [
    "DIGS_GIT_HISTORY",
    "FATAL",
    "FLAGS",
    "READS_LEAK_PATHS",
    "TAMPERS_WITH_RUNNER",
    "TOUCHES_HIDDEN_TESTS",
    "TOUCHES_TESTS",
    "TOUCHES_TEST_CONFIG",
    "UNREADABLE",
    "VIOLATIONS",
    "Finding",
    "Violation",
    "check_patch",
    "check_trajectory",
    "scan_patch",
]
