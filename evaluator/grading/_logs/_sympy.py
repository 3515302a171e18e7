"""sympy's `bin/test --verbose`: one line per test, `test_name <status>`, checked against the
"tests finished: ..." totals.

The totals are one text that sympy's reporter breaks onto a new line wherever the next part
("1 expected to fail, ") would pass 80 columns, and then centres between `=` (none at all once
it is that long): a run with several kinds of outcome prints it over two lines or more,
`tests finished: 30 passed, 1 failed, 2 skipped, 1 expected to fail, ` then
`1 exceptions, in 4.20 seconds`. Its parts are read across those lines.

Ids are bare function names, as SWE-bench writes them; the same name in two files is one id
(reported twice with different statuses, it reads as "error"). Statuses: ok, F (failed),
E (error), f (expected to fail), X (expected to fail but passed: passed), s/w/T/K (skipped:
plain, slow, timeout, interrupted; a skip may be preceded by its reason). A test whose line
does not end in a status printed output: every line up to a status code alone is that output,
even one shaped like another test's result. A test file that fails to import
(`path.py[?]   Failed to import`) is one of the totals' exceptions and names no test.
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

_LINE = re.compile(r"^(?P<id>test_\w*) (?:.* )?(?P<st>ok|F|E|f|X|s|w|T|K)$")
_START = re.compile(r"^(?P<id>test_\w*)(?: .*)?$")
_IMPORT_FAILED = re.compile(r"^\S+\.py\[\?\]\s+Failed to import")  # the file's tests never ran
_FILE_END = re.compile(r"\s*\[(?:OK|FAIL)\]$")  # right-aligned after a file's last test
_CODES = {"ok": PASSED, "F": FAILED, "E": ERROR, "f": XFAILED, "X": PASSED,
          "s": SKIPPED, "w": SKIPPED, "T": SKIPPED, "K": SKIPPED}
_FINISHED = re.compile(r"^tests finished: (?P<body>.*?),? in [\d.]+ seconds$")
_SUMMARY_LINES = 4  # its parts, each at most a line: 7 kinds of outcome fit on 3 lines of 80
_PART = re.compile(r"^(\d+) (.+)$")
_WORDS = {"passed": PASSED, "failed": FAILED, "exceptions": ERROR, "skipped": SKIPPED,
          "expected to fail": XFAILED, "expected to fail but passed": PASSED}


class SympyReader:
    """Reads sympy's own runner in verbose mode (`bin/test -C --verbose`)."""

    name = "sympy"

    def read(self, text: str) -> dict[str, str]:
        tally, listed, claimed = Tally(), dict.fromkeys(_WORDS.values(), 0), None
        pending: str | None = None
        lines = text.splitlines()
        for i, raw in enumerate(lines):
            line = _FILE_END.sub("", raw.strip())
            if line.strip("= ").startswith("tests finished: ") and (
                    body := _summary(lines, i)) is not None:
                claimed = _totals(body)
            elif pending is not None:
                # The test is still running: its output, however it looks, up to a status
                # code on a line alone (sympy writes it right after the test's output).
                if line in _CODES:
                    listed[_CODES[line]] += 1
                    tally.add(pending, _CODES[line])
                    pending = None
            elif _IMPORT_FAILED.match(line):
                # Counted among the exceptions; it names no test, so the file's tests are
                # missing (failed), as the official parser, which reads only test lines, has it.
                listed[ERROR] += 1
            elif (m := _LINE.match(line)) and (" " not in line or _plain(line)):
                status = _CODES[m["st"]]
                listed[status] += 1
                tally.add(m["id"], status)
            elif m := _START.match(line):
                pending = m["id"]
        if claimed is None:
            raise ResultsError("no `tests finished: ...` line in the sympy log: the run did "
                               "not finish, or this is not `bin/test --verbose` output")
        for status, n in claimed.items():
            check_total("sympy", status, n, listed[status])
        return tally.statuses


def _plain(line: str) -> bool:
    # A status word after the id alone, or a skip with its reason between them.
    parts = line.split(" ")
    return len(parts) == 2 or parts[-1] in ("s", "w", "T", "K")


def _summary(lines: list[str], start: int) -> str | None:
    """The totals' body from the line at `start` on, joined across sympy's line breaks; None
    when no `in N seconds` ends it within the lines its parts can take (cut short)."""
    text = ""
    for raw in lines[start:start + _SUMMARY_LINES]:
        text += raw.strip().strip("=").strip() + " "
        if m := _FINISHED.match(text.strip()):
            return m["body"]
    return None


def _totals(body: str) -> dict[str, int]:
    out = dict.fromkeys(_WORDS.values(), 0)
    for part in body.split(", "):
        if (m := _PART.match(part.strip())) and m[2] in _WORDS:
            out[_WORDS[m[2]]] += int(m[1])
    return out
