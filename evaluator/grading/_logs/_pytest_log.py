"""`pytest -rA`: the short test summary info at the end of the run, checked against its totals.

Only the last "short test summary info" section before the final totals line is read: it comes
after every test's captured output, so a test printing "PASSED tests/x.py::test_y" while it runs
cannot add a line to it. Ids are pytest's node ids as it prints them; the " - message" tail of a
FAILED, ERROR or XFAIL line is not part of the id (an id that itself holds " - " is cut there).
SKIPPED lines of `-rA` name a file and line, not a test ("SKIPPED [2] tests/x.py:10: reason"):
skipped tests are counted for the totals but have no id, so they read as missing (unless
pytest prints them unfolded, `SKIPPED nodeid - reason`). XPASS reads as passed. Every count
of the final line must equal the lines listed for it.
"""

from __future__ import annotations

import re
from collections import Counter

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

_HEADER = re.compile(r"^=+ short test summary info =+$")
_FINAL = re.compile(r"^=+ (?P<body>(?:\d+ [a-z]+(?:, )?)+|no tests ran)"
                    r"(?: in [\d.]+s(?: \([^)]*\))?)? =+$")
_STATUS = {"PASSED": PASSED, "FAILED": FAILED, "ERROR": ERROR, "XFAIL": XFAILED, "XPASS": PASSED,
           "SKIPPED": SKIPPED}
_WORD_OF = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "XFAIL": "xfailed",
            "XPASS": "xpassed", "SKIPPED": "skipped"}
_PHASE = re.compile(r"^at (?:setup|teardown|call) of ")
# The final line's words; "warnings" and "deselected" are not tests that ran.
_FINAL_WORDS = {"passed": "passed", "failed": "failed", "error": "error", "errors": "error",
                "xfailed": "xfailed", "xpassed": "xpassed", "skipped": "skipped"}
_SKIP = re.compile(r"^SKIPPED \[(\d+)\] ")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class PytestLogReader:
    """Reads `pytest -rA` output (any verbosity; `-p no:cacheprovider` and the like are fine)."""

    name = "pytest-log"

    def read(self, text: str) -> dict[str, str]:
        lines = [_ANSI.sub("", line).rstrip("\r") for line in text.splitlines()]
        finals = [i for i, line in enumerate(lines) if _FINAL.match(line)]
        if not finals:
            raise ResultsError("no pytest totals line (`=== 3 passed in 0.1s ===`) in the "
                               "log: the run did not finish, or this is not `pytest -rA` output")
        end = finals[-1]
        start = max((i for i, line in enumerate(lines[:end]) if _HEADER.match(line)), default=end)
        tally, listed = Tally(), Counter[str]()
        for line in lines[start + 1:end]:
            word, _, rest = line.partition(" ")
            if m := _SKIP.match(line):
                listed["skipped"] += int(m.group(1))
            elif word in _STATUS and rest.strip():
                test_id = rest if word == "PASSED" else _PHASE.sub("", rest.split(" - ", 1)[0])
                listed[_WORD_OF[word]] += 1
                tally.add(test_id.strip(), _STATUS[word])
        claimed = _totals(lines[end])
        for what in ("passed", "failed", "error", "xfailed", "xpassed", "skipped"):
            check_total("pytest", what, claimed.get(what, 0), listed[what])
        return tally.statuses


def _totals(line: str) -> Counter[str]:
    m = _FINAL.match(line)
    assert m is not None
    out = Counter[str]()
    for part in m.group("body").split(", ") if m.group("body") != "no tests ran" else []:
        n, _, word = part.partition(" ")
        if word in _FINAL_WORDS:
            out[_FINAL_WORDS[word]] += int(n)
    return out
