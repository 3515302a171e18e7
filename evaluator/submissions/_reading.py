"""Two runs' outputs, read for one test: the lines of each that are about it (to set side by
side), and their published output read by our reader for the task's runner (to tell a run that
differed from a log that was read differently)."""

from __future__ import annotations

import re

from evaluator.grading import PytestLogReader, ResultsError, normalize, reader_for

START, END = ">>>>> Start Test Output", ">>>>> End Test Output"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
EXCERPT_LINES = 12
_WIDTH = 240


def test_part(output: str) -> str:
    """The part of an eval script's output between SWE-bench's markers (all of it without)."""
    start = output.find(START)
    if start < 0:
        return output
    body = output[output.find("\n", start) + 1:]
    end = body.find(END)
    return body if end < 0 else body[:body.rfind("\n", 0, end) + 1]


def read_with_ours(output: str, runner: str) -> tuple[dict[str, str] | None, str]:
    """Their output read by our reader for `runner` (a JUnit task's pytest prints `-rA`
    lines): (test id -> status, "") or (None, why it cannot be read)."""
    reader = PytestLogReader() if runner == "junit" else reader_for(runner)
    try:
        return reader.read(_ANSI.sub("", test_part(output))), ""
    except ResultsError as exc:
        return None, str(exc)


def status_of(statuses: dict[str, str], test: str, runner: str) -> str:
    """The status a required id has among `statuses` (a run's ids): its own, else (pytest)
    every id cut at its first whitespace or started by it, the worst of them; `missing`."""
    if test in statuses:
        return statuses[test]
    if runner == "django":
        forms = {normalize(t): s for t, s in statuses.items()}
        return forms.get(normalize(test), "missing")
    found = [s for t, s in statuses.items()
             if (t.split() or [t])[0] == test or (test.count("[") > test.count("]")
                                                  and t.startswith(test))]
    order = ("passed", "xfailed", "skipped", "failed", "error")
    return max(found, key=order.index) if found else "missing"


def excerpt(output: str, test: str) -> str:
    """The lines of `output` naming `test` (its id, or the name after its last `::`), each with
    the two lines after it, at most EXCERPT_LINES lines, each cut to a readable width."""
    if not output:
        return ""
    name = test.split("::")[-1].split(" (")[0].split("[")[0]
    keys = {test, name} if len(name) > 4 else {test}
    lines = _ANSI.sub("", output).splitlines()
    picked: list[int] = []
    for i, line in enumerate(lines):
        if any(k in line for k in keys):
            picked.extend(j for j in range(i, min(i + 3, len(lines))) if j not in picked)
        if len(picked) >= EXCERPT_LINES:
            break
    return "\n".join(lines[j][:_WIDTH] for j in sorted(picked)[:EXCERPT_LINES])
