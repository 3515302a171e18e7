"""Why a published outcome and ours differ: one cause class per disagreement, from the evidence
both sides left, each named with the sentence that decided it.

The checks run in order and the first that finds its evidence names the cause:

1. our integrity checks: our grade is tampered or rejected, the policy flagged the patch, or
   the grader left sections of it out (tests, test config, unreadable files);
2. runner reading: our run left no readable report, or their own published output, read by our
   reader, says of a differing test what their report does not (one output, read two ways);
3. their evaluation (their files disagree): their report says resolved yet lists failures,
   or their results.json and report.json say different things;
4. required-test lists: a differing test is required on one side only (their report lists tests
   our row does not, or the gold gate dropped a flaky one);
5. environment: a differing test is skipped or missing in one run, or one run's output shows a
   module that cannot be imported, or their own output shows the test failing where ours
   passes it;
6. their evaluation: none of the above; our run is clean (the task is valid here: gold passes
   every required test, the empty patch fails) and consistent, so theirs is what differs.

A check is a class with `name` and `explain`; adding a cause is adding a class to `CHECKS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from evaluator.gold import VerdictRecord
from evaluator.grading import INCONSISTENT, NO_REPORT, PATCH_REJECTED, TAMPERED, GradeRecord
from evaluator.result import ResultRecord
from evaluator.submissions._published import F2P, P2P, PublishedEntry
from evaluator.submissions._table import TestDiff

ENVIRONMENT = "environment"
TEST_LISTS = "required-test lists"
RUNNER = "runner reading"
INTEGRITY = "our integrity checks"
THEIRS = "their evaluation"
CAUSES = (ENVIRONMENT, TEST_LISTS, RUNNER, INTEGRITY, THEIRS)
_READERS = {"junit": "pytest -rA", "pytest-log": "pytest -rA", "django": "Django",
            "sympy": "sympy bin/test"}
_IMPORT = re.compile(r"(ModuleNotFoundError|ImportError): [^\n]{0,120}")


@dataclass(frozen=True)
class Evidence:
    """Everything both sides left for one instance."""

    entry: PublishedEntry
    runner: str  # the task's `results:` (junit, pytest-log, django, sympy)
    result: ResultRecord | None
    grade: GradeRecord | None
    verdict: VerdictRecord | None
    diffs: tuple[TestDiff, ...]
    required: dict[str, list[str]]  # ours, after the gate's drops: F2P / P2P
    their_output: str
    our_output: str
    their_read: bool  # their output could be read by our reader

    @property
    def tests(self) -> list[TestDiff]:
        """The differing tests required on both sides (published, or read from their output)."""
        return [d for d in self.diffs if d.ours != "not required"
                and (d.published is not None or d.their_reading not in ("", "missing"))]


class Check(Protocol):
    name: str

    def explain(self, ev: Evidence) -> str | None: ...


class Integrity:
    name = INTEGRITY

    def explain(self, ev: Evidence) -> str | None:
        g, r = ev.grade, ev.result
        if g is not None and g.outcome in (TAMPERED, PATCH_REJECTED):
            return f"ours: {g.outcome}: " + "; ".join((g.evidence or [g.detail])[:3])[:400]
        if r is not None and r.status == "policy":
            said = [str(v.get("reason", "")) for v in r.violations][:3]
            return ("ours: policy, the patch's added code breaks a rule (" + "; ".join(said)
                    + "); see the attempt page's evidence")
        if g is not None and (g.dropped or g.opaque) and ev.entry.resolved:
            left = [*g.dropped, *(o.get("path", "") for o in g.opaque)]
            return (f"the grader left {len(left)} file(s) of the patch out (tests, test config, "
                    f"import hooks, unreadable files): {', '.join(left[:5])}")
        return None


class Runner:
    name = RUNNER

    def explain(self, ev: Evidence) -> str | None:
        if ev.grade is not None and ev.grade.outcome in (NO_REPORT, INCONSISTENT):
            return f"our run left no readable report: {ev.grade.detail[:300]}"
        for d in ev.tests:
            if d.published is None or d.their_reading in ("", "missing"):
                continue
            theirs_read = d.their_reading in ("passed",) or (d.kind == P2P and d.their_reading
                                                              in ("skipped", "xfailed"))
            if theirs_read != d.published:
                return (f"{d.test}: their report says {'success' if d.published else 'failure'}, "
                        f"their own test_output.txt read by our {_READERS.get(ev.runner, ev.runner)}"
                        f" reader says {d.their_reading}: one output, read two ways")
        return None


class TheirFiles:
    name = THEIRS

    def explain(self, ev: Evidence) -> str | None:
        conflicts = ev.entry.conflicts
        return "their files disagree: " + "; ".join(conflicts) if conflicts else None


class Lists:
    name = TEST_LISTS

    def explain(self, ev: Evidence) -> str | None:
        dropped = (ev.verdict.dropped if ev.verdict is not None else {}) or {}
        only_theirs = [d.test for d in ev.diffs if d.ours == "not required"]
        only_ours = [d.test for d in ev.diffs if d.published is None and d.ours_passed is False]
        why = []
        if only_theirs:
            gone = [t for t in only_theirs if t in dropped]
            why.append(f"their report counts {len(only_theirs)} test(s) our row does not "
                       f"require: {', '.join(only_theirs[:5])}"
                       + (f" (the gold gate dropped {', '.join(gone[:3])} as flaky here)"
                          if gone else ""))
        if only_ours and ev.entry.tests is not None:
            why.append(f"our row requires {len(only_ours)} test(s) their report does not list: "
                       f"{', '.join(only_ours[:5])}")
        return "; ".join(why) or None


class Environment:
    name = ENVIRONMENT

    def explain(self, ev: Evidence) -> str | None:
        absent = [d for d in ev.tests if d.ours in ("skipped", "missing")]
        if absent:
            return "; ".join(f"{d.test} is {d.ours} in our run" for d in absent[:5]) + (
                " (the gold gate names what this environment skips or never reports)")
        for side in ("our", "their"):
            for d in ev.tests:
                if m := _IMPORT.search((d.our_lines if side == "our" else d.their_lines) or ""):
                    return f"{d.test}: {side} run cannot import a module ({m.group(0)})"
        fails_there = [d.test for d in ev.tests if d.ours_passed and d.published is not True
                       and d.their_reading in ("failed", "error")]
        if fails_there:
            return (f"{', '.join(fails_there[:5])} failed in their own run (their output) and "
                    "passed in ours: the same patch behaves differently in the two environments")
        return None


class Theirs:
    name = THEIRS

    def explain(self, ev: Evidence) -> str:
        valid = ev.verdict is not None and ev.verdict.valid
        said = ("resolved" if ev.entry.resolved else "not resolved")
        ours = ev.result.status if ev.result is not None else "no grade"
        read = [d for d in ev.tests if d.their_reading not in ("", "missing")]
        same = read and all((d.their_reading == "passed") == d.ours_passed for d in read)
        return (f"they publish {said}; ours is {ours} in a clean run"
                + (" (the gold patch passes every required test here, the empty patch fails)"
                   if valid else "")
                + ("; their own output shows the differing tests as ours does" if same
                   else "" if ev.their_read else "; no output of theirs to read tests from"))


CHECKS: tuple[Check, ...] = (Integrity(), Runner(), TheirFiles(), Lists(), Environment())
FALLBACK = Theirs()


def classify(ev: Evidence) -> tuple[str, str]:
    """(cause, the sentence that decided it)."""
    for check in CHECKS:
        if (why := check.explain(ev)) is not None:
            return check.name, why
    return FALLBACK.name, FALLBACK.explain(ev)


def required_lists(f2p: list[str], p2p: list[str]) -> dict[str, list[str]]:
    return {F2P: list(f2p), P2P: list(p2p)}
