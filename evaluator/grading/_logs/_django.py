"""Django's `tests/runtests.py --verbosity 2` (unittest's verbose runner), checked against its
"Ran N tests" line.

Ids are `test_name (module.Class)`, as SWE-bench writes them; Python 3.11's longer form
`test_name (module.Class.test_name)` is read as the same id. A status on a line of its own
(the test printed between "..." and "ok") belongs to the last test announced. Where a test has
a docstring, unittest prints it after the id line and the status after the docstring; the id is
then taken from the line above. The FAIL:/ERROR: headers of the failure details must agree with
the status lines (a disagreement makes the test "error"). While an announced test has no status
yet, every line is its output, even one shaped like another test's result; so a test printing
"test_other (m.C) ... ok" adds nothing. A test's docstring line is also returned as an id of
that test (SWE-bench's Django parser keys docstring tests by it).
"""

from __future__ import annotations

import re

from evaluator.grading._logs._protocol import (
    ERROR,
    FAILED,
    PASSED,
    SKIPPED,
    XFAILED,
    ResultsError,
    Tally,
    check_total,
)

_ID = re.compile(r"^(?P<name>\w+) \((?P<where>[\w.]+)\)$")
_LINE = re.compile(r"^(?P<head>.*?) \.\.\. ?(?P<tail>.*)$")
_WORDS = (("ok", PASSED), ("OK", PASSED), ("FAIL", FAILED), ("ERROR", ERROR),
          ("skipped", SKIPPED), ("expected failure", XFAILED), ("unexpected success", FAILED))
_DETAIL = re.compile(r"^(?P<kind>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<id>\w+ \([\w.]+\))")
_WORSE = (PASSED, XFAILED, SKIPPED, FAILED, ERROR)
_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")


def normalize(test_id: str) -> str:
    """`name (mod.Class.name)` -> `name (mod.Class)`; other ids unchanged."""
    m = _ID.match(test_id)
    if m and m["where"].endswith("." + m["name"]):
        return f"{m['name']} ({m['where'][: -len(m['name']) - 1]})"
    return test_id


def _status(tail: str) -> str | None:
    for word, status in _WORDS:
        if tail == word or (word == "skipped" and tail.startswith("skipped ")):
            return status
    return None


class DjangoReader:
    """Reads unittest's verbosity-2 lines as Django's runner prints them."""

    name = "django"

    def read(self, text: str) -> dict[str, str]:
        tally, pending, previous, ran = Tally(), None, "", None
        docs: dict[str, str] = {}  # a docstring's first line -> the test it describes
        details: list[tuple[str, str]] = []
        for raw in text.splitlines():
            line = raw.strip()
            if m := _RAN.match(line):
                ran = int(m.group(1))
                continue
            if m := _DETAIL.match(line):
                details.append((normalize(m["id"]), ERROR if m["kind"] == "ERROR" else FAILED))
                continue
            m = _LINE.match(line)
            if pending is not None:
                # The announced test is still running: whatever it prints, a line that looks
                # like another test's, is its output, up to a status word on a line alone.
                if status := _status(line):
                    tally.add(pending, status)
                    pending = None
            elif m and (_ID.match(m["head"]) or _ID.match(previous)):
                head = m["head"] if _ID.match(m["head"]) else previous
                status = _status(m["tail"].strip())
                if head is previous:
                    # SWE-bench's parser keys such a test by its docstring's line: that names it too.
                    docs[m["head"]] = normalize(head)
                if status:
                    tally.add(normalize(head), status)
                else:
                    pending = normalize(head)
            previous = line
        if ran is None:
            raise ResultsError("no `Ran N tests` line in the Django log: the run did not "
                               "finish, or this is not `runtests.py --verbosity 2` output")
        check_total("Django", "tests ran", ran, tally.lines)
        for test_id, status in details:
            if tally.statuses.get(test_id) not in (status, None):
                tally.statuses[test_id] = ERROR
            elif test_id not in tally.statuses:
                tally.add(test_id, status)  # an error in setUpClass names no status line
        named: dict[str, set[str]] = {}
        for doc, test_id in docs.items():
            named.setdefault(doc, set()).add(test_id)
        for doc, ids in named.items():
            if doc not in tally.statuses:  # one line for two tests: the worse of the two
                tally.statuses[doc] = max((tally.statuses.get(t, ERROR) for t in ids),
                                          key=_WORSE.index)
        return tally.statuses
