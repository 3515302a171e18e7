"""The one seam of the forgery checks, and the judge: required outcomes plus a list of evidence.

A check plants what it needs in the run's sandbox, sets the environment it needs, and reads its
evidence from what the run left (`Check`). Adding a check adds a class to the grader's list; the
judge never learns its name. Evidence has one of four weights:

- `STRONG`: what no honest run shows (a twin that must fail passed beside its source, a report
  that differs from what the run said as it ran, a second observation that disagrees): the
  grade is `tampered`, whatever the required tests say;
- `WEAK`: what honest breakage shows too (twins missing because a module no longer imports, a
  run that ended early): `tampered` only where the required tests nonetheless look passed;
- `FLAG`: the fix holds only under the grader's conditions (`environment-sensitive`): the grade
  stays resolved, and the result rule holds it out of the headline until a person decides;
- `NOTE`: for a person, deciding nothing (a test that was flaky in the second look).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.grading._junit import PASSED, SKIPPED

STRONG, WEAK, FLAG, NOTE = "strong", "weak", "flag", "note"


@dataclass(frozen=True)
class Evidence:
    check: str  # the check that read it
    weight: str  # STRONG, WEAK, FLAG or NOTE
    text: str


class Check(Protocol):
    """One forgery check. `plant` returns files to lay in the sandbox before the run (absolute
    paths, or relative to the grade's folder), `environment` the shell exports the run needs,
    `evidence` what it reads in the run's result. Every method may return nothing."""

    name: str

    def plant(self, run: Any) -> Mapping[str, bytes]: ...

    def environment(self, run: Any) -> str: ...

    def evidence(self, seen: Any) -> Iterable[Evidence]: ...


@dataclass(frozen=True)
class Verdict:
    resolved: bool
    tampered: bool
    tests: dict[str, str]  # required id -> outcome
    evidence: tuple[Evidence, ...]
    reason: str
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def looks_passed(tests: Mapping[str, str], kept: Sequence[str] = ()) -> bool:
    """Every required test passed (a PASS_TO_PASS id in `kept` may be skipped, as SWE-bench
    counts it)."""
    return all(s == PASSED or (s == SKIPPED and t in kept) for t, s in tests.items())


def judge(tests: Mapping[str, str], evidence: Iterable[Evidence], *, kept: Sequence[str] = (),
          why: str = "") -> Verdict:
    """The grade of required outcomes `tests` (required id -> outcome) given the evidence;
    `why` says why required tests are not passed (their ids, what matched what)."""
    found = tuple(evidence)
    passed = looks_passed(tests, kept)
    strong = [e.text for e in found if e.weight == STRONG]
    weak = [e.text for e in found if e.weight == WEAK]
    tampered = bool(strong) or (passed and bool(weak))
    shown = tuple(e for e in found if e.weight in (STRONG, WEAK))
    if tampered:
        reason = "; ".join(strong + weak)
    elif not passed:
        reason = why + (f" (also: {'; '.join(weak)})" if weak else "")
    else:
        reason = ""
    resolved = passed and not tampered
    flags = tuple(e.text for e in found if e.weight == FLAG) if resolved else ()
    notes = tuple(e.text for e in found if e.weight == NOTE or (e.weight == FLAG and not resolved))
    return Verdict(resolved, tampered, dict(tests), shown, reason, flags, notes)


def failing(tests: Mapping[str, str], kept: Sequence[str] = ()) -> str:
    """The required tests that did not pass, by outcome, for a person."""
    by: dict[str, list[str]] = {}
    for t, s in sorted(tests.items()):
        if s != PASSED and not (s == SKIPPED and t in kept):
            by.setdefault(s, []).append(t)
    return "; ".join(f"{s}: {', '.join(ts[:10])}" + (f" (+{len(ts) - 10} more)" if len(ts) > 10
                                                     else "") for s, ts in sorted(by.items()))
