"""The gold gate's verdict for one task, from its gold and empty-patch grades, test by test.

A required test whose outcome flips between reps decides differently by its kind:
- a PASS_TO_PASS test that flips (over the reps of both patches: it must pass with either) is
  dropped from the task's required tests, with the reason recorded (the task stays valid,
  judged on the tests that are stable);
- a FAIL_TO_PASS test that flips keeps the task flaky: it is what tells a fix from no fix.
Resolution is then judged per rep on the tests still required, and must agree across reps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.grading import GradeRecord, describe_ids
from evaluator.store import Record

VALID = "valid"
FLAKY = "flaky"
BROKEN_GOLD = "broken-gold"
PASSES_WITHOUT_FIX = "passes-without-fix"
INCOMPLETE = "incomplete"  # some grade is missing (not run yet, or an infra error)
EXPLOITABLE = "exploitable"  # valid, but a bundled exploit resolves without a flag
VERDICTS = (VALID, FLAKY, BROKEN_GOLD, PASSES_WITHOUT_FIX, EXPLOITABLE, INCOMPLETE)


@dataclass(frozen=True)
class Decision:
    verdict: str
    why: str
    dropped: dict[str, str] = field(default_factory=dict)  # PASS_TO_PASS id -> why dropped


class VerdictRecord(Record):
    """One task's gold-gate verdict, decided from its gold, empty-patch and exploit records.

    `verdicts` gives an `incomplete` one (`undecided`) for a task with none stored yet; that one
    is never stored, so it carries only the task, the verdict and what to run."""

    KIND = "verdict"

    task_set: str = ""
    task_id: str
    status: str = ""  # the verdict again: the store indexes records by status
    verdict: str
    why: str = ""
    dropped: dict[str, str] = {}  # PASS_TO_PASS id -> why the gate dropped it (flaky)
    fixture: str | None = None  # the task's gold-gate fixture (flaky, broken-gold), if any
    lock_version: str = ""
    grader_version: str = ""
    gold_grades: list[str] = []  # grade keys, one per rep
    empty_grades: list[str] = []
    gold_resolved: list[bool | None] = []  # None: that rep's grade is missing
    empty_resolved: list[bool | None] = []
    exploits: dict[str, dict[str, Any]] = {}  # family -> status, caught_by, means, grade, why...
    exploitable: list[str] = []  # the families that resolved unflagged
    # The task's calibration (`_gate.calibration_summary`): fresh names, twins, second look.
    calibration: dict[str, Any] = {}

    @classmethod
    def undecided(cls, task_id: str, task_set: str) -> VerdictRecord:
        return cls(task_id=task_id, verdict=INCOMPLETE, why=f"run `doit gold:{task_set}`")

    @property
    def valid(self) -> bool:
        return self.verdict == VALID


def _flips(grades: Sequence[GradeRecord], ids: Sequence[str]) -> dict[str, str]:
    """Id -> how it went, for each of `ids` whose status differs between the reps."""
    out = {}
    for t in ids:
        seen = [g.tests.get(t, "missing") for g in grades]
        if len(set(seen)) > 1:
            out[t] = f"passed in {seen.count('passed')} of {len(seen)} reps"
    return out


def _resolved(g: GradeRecord, dropped: dict[str, str]) -> bool:
    """The grader's own answer, relaxed only by the dropped tests: an unresolved rep whose only
    failing required tests were dropped resolves on the reduced list."""
    if g.resolved or not dropped or g.outcome != "unresolved":
        return g.resolved
    failing = [t for t, s in g.tests.items() if s != "passed"]
    return bool(failing) and all(t in dropped for t in failing)


def decide_tests(gold: Sequence[GradeRecord | None], empty: Sequence[GradeRecord | None],
                 fail_to_pass: Sequence[str], pass_to_pass: Sequence[str]) -> Decision:
    """The verdict from every rep's grade record; a None rep makes it incomplete."""
    if any(g is None for g in (*gold, *empty)):
        return Decision(INCOMPLETE, "some reps have no grade yet; run the gold target again")
    gold_ok = [g for g in gold if g is not None]
    empty_ok = [g for g in empty if g is not None]
    f2p = {**_flips(gold_ok, fail_to_pass), **_flips(empty_ok, fail_to_pass)}
    if f2p:
        return Decision(FLAKY, "FAIL_TO_PASS tests flip between reps: " + ", ".join(
            f"{t} ({how})" for t, how in sorted(f2p.items())[:8]))
    # A PASS_TO_PASS test passes with and without the fix, so every rep of both patches is a
    # sample of it: six runs find a flaky test far more surely than three.
    dropped = {t: f"flaky: {how} (gold and empty patch)" for t, how in
               _flips([*gold_ok, *empty_ok], pass_to_pass).items()}
    note = ("; dropped flaky PASS_TO_PASS: " + ", ".join(sorted(dropped)[:8])) if dropped else ""
    for name, reps in (("gold", gold_ok), ("empty", empty_ok)):
        if len({_resolved(g, dropped) for g in reps}) > 1:
            return Decision(FLAKY, f"{name}-patch reps disagree on resolved{note}", dropped)
    if not _resolved(gold_ok[0], dropped):
        return Decision(BROKEN_GOLD, (f"gold patch does not resolve: "
                                      f"{gold_ok[0].detail}")[:500] + note, dropped)
    if _resolved(empty_ok[0], dropped):
        return Decision(PASSES_WITHOUT_FIX, "the tests pass with no patch at all" + note, dropped)
    ids = describe_ids(gold_ok[0].ids)  # said here too: the gate is where users look first
    return Decision(VALID, f"gold passes and the empty patch fails in all {len(gold_ok)} reps"
                    + note + (f"; {ids}" if ids else ""), dropped)


def decide(gold: Sequence[GradeRecord | None], empty: Sequence[GradeRecord | None]
           ) -> tuple[str, str]:
    """(verdict, why) with every test seen treated as FAIL_TO_PASS: any flip is flaky."""
    ids = sorted({t for g in (*gold, *empty) if g is not None for t in g.tests})
    d = decide_tests(gold, empty, ids, [])
    if d.verdict == FLAKY and not ids:
        return d.verdict, d.why
    return d.verdict, d.why.replace("FAIL_TO_PASS tests flip", "reps disagree on", 1)
