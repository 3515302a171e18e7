"""The seam for reading per-test results out of a runner's log, and what every reader shares."""

from __future__ import annotations

from typing import Protocol

from evaluator.errors import AgentError

PASSED, FAILED, ERROR, SKIPPED, XFAILED = "passed", "failed", "error", "skipped", "xfailed"
STATUSES = (PASSED, FAILED, ERROR, SKIPPED, XFAILED)


class ResultsError(AgentError):
    """The log cannot be trusted as a record of the run: its own totals contradict its lines."""


class ResultsReader(Protocol):
    """Maps a runner's log (only the part between the harness's markers) to test id -> status.

    Statuses are exactly those of `STATUSES`. A test the log reports twice with different
    statuses is returned as "error": a forged extra line can never turn a failure into a pass,
    and a test that is really two (a bare sympy name in two files) cannot pass on one of them.
    Where the runner prints its own totals, a reader checks them against the lines it read and
    raises ResultsError when they disagree.
    """

    name: str

    def read(self, text: str) -> dict[str, str]: ...


class Tally:
    """Collects (id, status) pairs; an id seen with two statuses becomes "error"."""

    def __init__(self) -> None:
        self.statuses: dict[str, str] = {}
        self.lines = 0  # status lines read, duplicates included

    def add(self, test_id: str, status: str) -> None:
        assert status in STATUSES, status
        self.lines += 1
        seen = self.statuses.get(test_id)
        self.statuses[test_id] = status if seen in (None, status) else ERROR

    def count(self, *statuses: str) -> int:
        return sum(1 for s in self.statuses.values() if s in statuses)


def check_total(reader: str, what: str, claimed: int, found: int) -> None:
    if claimed != found:
        raise ResultsError(f"the {reader} log says {claimed} {what} but lists {found}: the "
                           "output was cut short or lines were forged; not trusted")
