"""Which skipped PASS_TO_PASS tests SWE-bench's harness counts as kept, read from a run's output
as its log parser for the runner reads it.

The official harness keeps a PASS_TO_PASS test whose status its parser recorded as PASSED,
XFAIL or SKIPPED, and counts every other one failed, a test its parser never recorded
included. So a skip is kept only where the log names the test:

- pytest (`parse_log_pytest`, and `_v2` for coloured logs): the `-rA` summary prints an xfail as
  `XFAIL <id> - reason` but folds skips into `SKIPPED [N] file:line: reason`, which names no
  test; a skipped test is kept only where the run printed it unfolded (`SKIPPED <id>`, pytest's
  `--no-fold-skipped`, or an old pytest's `<id> SKIPPED` line), else it counts failed;
- Django (`parse_log_django`): `name (module.Class) ... skipped 'why'` names the test: kept;
  `... expected failure` is read by no rule of the parser: failed;
- sympy (`parse_log_sympy`): only `ok`, `F` and `E` lines are read, so a skip (`s`, `w`) or an
  xfail (`f`) counts failed.

An imported SWE-bench row is graded so (`pass_to_pass_rule: swebench`); a hand-written task
requires every PASS_TO_PASS test to pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from evaluator.grading._logs._django import normalize

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_KEEPS = ("SKIPPED", "XFAIL")
_FOLDED = re.compile(r"^\[\d+\]$")  # `SKIPPED [2] file:10: why`: a count, not a test
_DJANGO_SKIP = " ... skipped"


def official_keeps(results: str, output: str, ids: Iterable[str]) -> tuple[str, ...]:
    """The `ids` (PASS_TO_PASS, as the row writes them) that SWE-bench's parser for the runner
    `results` (junit, pytest-log, django, sympy) records as skipped or xfail in `output`."""
    wanted = set(ids)
    if results in ("junit", "pytest-log"):
        found = _pytest(output, wanted)
    elif results == "django":
        found = _django(output, wanted)
    else:
        found = set()
    return tuple(sorted(found))


def _pytest(output: str, wanted: set[str]) -> set[str]:
    last: dict[str, str] = {}  # the parser keeps the status of the line printed last
    for raw in output.splitlines():
        line = _ANSI.sub("", raw).strip()
        words = line.split()
        if len(words) < 2:
            continue
        if words[0] in (*_KEEPS, "PASSED", "FAILED", "ERROR") and not _FOLDED.match(words[1]):
            head = line.split(" - ", 1)[0].split()
            for key in {words[1], " ".join(head[1:])} & wanted:
                last[key] = words[0]
        elif words[-1] in _KEEPS and len(words) == 2 and words[0] in wanted:
            last[words[0]] = words[-1]
    return {t for t, word in last.items() if word in _KEEPS}


def _django(output: str, wanted: set[str]) -> set[str]:
    by_form = {normalize(t): t for t in wanted}
    found = set()
    for raw in output.splitlines():
        line = raw.strip()
        if _DJANGO_SKIP in line:
            head = normalize(line.split(_DJANGO_SKIP, 1)[0].strip())
            if head in by_form:
                found.add(by_form[head])
    return found
