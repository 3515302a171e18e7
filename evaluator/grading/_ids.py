"""Which tests of a run a required id names, the way SWE-bench's log parsers key them.

SWE-bench rows hold ids as the official parsers read them from the log: pytest's `-rA` lines
are split at whitespace, so a parametrized id with a space (`test_x[a b]`) is kept as its first
word (`test_x[a`); an id with more `[` than `]` (cut mid-parameter) is matched as a prefix when
every test it could mean agrees on pass or fail; Django's runner prints `name (mod.Class)` before
Python 3.11 and `name (mod.Class.name)` since. A required id here matches, in order: the run's
id itself; else every test whose id cut at its first whitespace is it; else (unbalanced
brackets) every test whose cut id starts with it. Django ids are compared in one form.

An id matching several tests takes the worst of their outcomes (SWE-bench keeps the line printed
last, and `-rA` prints failures after passes); one matching none is `missing`. Both are named in
the grade record (`ids`) and by the gold gate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from evaluator.grading._logs import normalize as django_form

_RANK = {"passed": 0, "skipped": 1, "missing": 2, "failed": 3, "error": 4}


def cut(test_id: str) -> str:
    """An id as SWE-bench's pytest parser keys it: its first whitespace-separated word."""
    parts = test_id.split()
    return parts[0] if parts else test_id


def matches(required: Sequence[str], ran: Iterable[str], results: str = "junit"
            ) -> dict[str, list[str]]:
    """Required id -> the ids of the run it names (empty: none)."""
    ran = list(ran)
    if results == "django":
        forms: dict[str, list[str]] = {}
        for t in ran:
            forms.setdefault(django_form(t), []).append(t)
        return {r: forms.get(django_form(r), []) for r in required}
    if results == "sympy":
        have = set(ran)
        return {r: [r] if r in have else [] for r in required}
    exact = set(ran)
    by_cut: dict[str, list[str]] = {}
    for t in ran:
        by_cut.setdefault(cut(t), []).append(t)
    out: dict[str, list[str]] = {}
    for r in required:
        if r in exact:
            out[r] = [r]
        elif r in by_cut:
            out[r] = by_cut[r]
        elif r.count("[") > r.count("]"):
            out[r] = sorted(t for c, ts in by_cut.items() if c.startswith(r) for t in ts)
        else:
            out[r] = []
    return out


def combined(statuses: Sequence[str]) -> str:
    """The outcome of an id naming these tests: the worst of them; `missing` for none."""
    return max(statuses, key=lambda s: _RANK.get(s, 2)) if statuses else "missing"


def outcomes(required: Sequence[str], tests: Mapping[str, str], results: str = "junit"
             ) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(required id -> outcome, required id -> tests it names, for the ids that are not one
    test of the run under their own name)."""
    found = matches(required, tests, results)
    status = {r: combined([tests[t] for t in ts]) for r, ts in found.items()}
    odd = {r: ts for r, ts in found.items() if ts != [r]}
    return status, odd


def describe(odd: Mapping[str, Sequence[str]]) -> str:
    """One line for people: which required ids matched several tests or none."""
    none = [r for r, ts in odd.items() if not ts]
    several = {r: ts for r, ts in odd.items() if len(ts) > 1}
    read = [r for r, ts in odd.items() if len(ts) == 1 and ts[0].startswith("(")]
    parts = []
    if read:
        parts.append(f"{len(read)} PASS_TO_PASS id(s) name no test of the run and were read "
                     "from lines it printed, as SWE-bench's parser reads them: "
                     + ", ".join(read[:5]) + (" ..." if len(read) > 5 else ""))
    if none:
        parts.append(f"{len(none)} required id(s) match no test of the run: "
                     + ", ".join(none[:5]) + (" ..." if len(none) > 5 else ""))
    if several:
        parts.append(f"{len(several)} required id(s) match several tests (the worst outcome "
                     "counts): " + "; ".join(f"{r} -> {len(ts)} tests" for r, ts in
                                             list(several.items())[:5]))
    return "; ".join(parts)


_STATUS_WORDS = ("PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# What an id read from printed lines means for a PASS_TO_PASS test, as the official harness
# grades it: XFAIL passes, a skip keeps it, a failure or error does not.
_AS_P2P = {"PASSED": "passed", "XFAIL": "passed", "SKIPPED": "passed", "FAILED": "failed",
           "ERROR": "error"}


def printed(output: str, wanted: Iterable[str]) -> dict[str, str]:
    """For `wanted` PASS_TO_PASS ids: their outcome as SWE-bench's pytest parser reads status
    lines anywhere in the output (a line an inner pytest session printed, under pytester, is
    such a line): the last one printed counts."""
    wanted = set(wanted)
    out: dict[str, str] = {}
    for raw in output.splitlines():
        line = _ANSI.sub("", raw)
        word = line.split(" ", 1)[0]
        if word not in _STATUS_WORDS:
            continue
        if word == "FAILED":
            line = line.replace(" - ", " ")
        parts = line.split()
        if len(parts) > 1 and parts[1] in wanted and not re.fullmatch(r"\[\d+\]", parts[1]):
            out[parts[1]] = _AS_P2P[word]
    return out
