"""Two runs' outputs, read for one test: the lines of each that are about it (to set side by
side), and their published output read by our reader for the task's runner (to tell a run that
differed from a log that was read differently)."""

from __future__ import annotations

import re

from evaluator.grading import PytestLogReader, ResultsError, normalize, reader_for

START, END = ">>>>> Start Test Output", ">>>>> End Test Output"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
EXCERPT_LINES = 12
# In a failure's section, the lines that say why: pytest's `>` and `E` lines and its
# `file:line: Error` line, a traceback's last line (unittest, sympy).
_SAYS = re.compile(r"^(>|E |[\w./-]+:\d+: \w|\w*(Error|Exception|Failure)\b)")
_HEADER = re.compile(r"^(_{3,}|={3,}|-{3,}) .* (_{3,}|={3,}|-{3,})$")  # pytest's, sympy's
_WIDTH = 240


def between_markers(output: str) -> str:
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
        return reader.read(_ANSI.sub("", between_markers(output))), ""
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
    """The lines of `output` about `test`: those naming it (its id, or the name after its last
    `::` as a whole word), and under a failure section's header naming it, the section's
    lines up to the next header; at most EXCERPT_LINES lines, each cut to a readable width."""
    if not output:
        return ""
    name = test.split("::")[-1].split(" (")[0].split("[")[0]
    word = re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w])") if len(name) > 4 else None
    lines = _ANSI.sub("", output).splitlines()
    picked: list[int] = []
    i = 0
    while i < len(lines) and len(picked) < EXCERPT_LINES:
        line = lines[i]
        if test in line or (word is not None and word.search(line)):
            picked.append(i)
            if _HEADER.match(line):  # a failure's section: what says why, to the next one
                j = i + 1
                while j < len(lines) and not _HEADER.match(lines[j]):
                    j += 1
                said = [k for k in range(i + 1, j) if _SAYS.match(lines[k])]
                picked.extend(said or range(i + 1, min(j, i + 7)))
                i = j
                continue
        i += 1
    return "\n".join(lines[j][:_WIDTH] for j in picked[:EXCERPT_LINES])
