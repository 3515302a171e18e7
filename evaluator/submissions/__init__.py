"""Submissions: what others published, re-verified. A leaderboard submission comes in as its
authors published it (predictions, and where present `results/results.json`, per-instance
`report.json` and `test_output.txt`; read by `evaluator.swebench`), its published outcomes are
kept read-only beside it, and its predictions are graded as any predictions subject is. The
agreement table sets each published outcome beside ours, per instance and per test, and names
the cause of each difference: environment, required-test lists, runner reading, our integrity
checks, their evaluation."""

from evaluator.submissions._agreement import agreement
from evaluator.submissions._causes import (
    CAUSES,
    ENVIRONMENT,
    INTEGRITY,
    RUNNER,
    TEST_LISTS,
    THEIRS,
    Evidence,
    classify,
)
from evaluator.submissions._check import AGREES, DIFFERS, require_agreement, tables
from evaluator.submissions._cli import add_commands
from evaluator.submissions._published import (
    F2P,
    P2P,
    PublishedEntry,
    PublishedRecord,
    counts,
    published,
    write_published,
)
from evaluator.submissions._reading import between_markers, excerpt, read_with_ours
from evaluator.submissions._table import (
    AGREE,
    DISAGREE,
    STATES,
    UNPUBLISHED,
    UNVERIFIED,
    Row,
    Table,
    TestDiff,
)
from evaluator.submissions._text import headline, table_lines

__all__ = [
    "AGREE",
    "AGREES",
    "CAUSES",
    "DIFFERS",
    "DISAGREE",
    "ENVIRONMENT",
    "F2P",
    "INTEGRITY",
    "P2P",
    "RUNNER",
    "STATES",
    "TEST_LISTS",
    "THEIRS",
    "UNPUBLISHED",
    "UNVERIFIED",
    "Evidence",
    "PublishedEntry",
    "PublishedRecord",
    "Row",
    "Table",
    "TestDiff",
    "add_commands",
    "agreement",
    "classify",
    "counts",
    "excerpt",
    "headline",
    "published",
    "read_with_ours",
    "require_agreement",
    "table_lines",
    "tables",
    "between_markers",
    "write_published",
]
