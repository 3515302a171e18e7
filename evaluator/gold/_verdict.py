"""The gold gate's verdict for one task, from its gold and empty-patch grades, test by test.

A required test whose outcome flips between reps decides differently by its kind:
- a PASS_TO_PASS test that flips (over the reps of both patches: it must pass with either) is
  dropped from the task's required tests, with the reason recorded (the task stays valid,
  judged on the tests that are stable);
- a FAIL_TO_PASS test that flips keeps the task flaky: it is what tells a fix from no fix.
Resolution is then judged per rep on the tests still required, and must agree across reps.

A rep with no report (the runner's output could not be read: a crash, a timeout, a log the
reader refuses) says nothing about any test: it is left out of the per-test comparison, never
counted as a flip, and named in the verdict (it is still a rep that did not resolve). Every
verdict also names, per task, the required tests the environment skips with the gold patch
(an imported row counts such a PASS_TO_PASS test as SWE-bench's harness does: failed unless
the runner's log names the skip) and the required ids no test of the gold run reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.grading import INCONSISTENT, NO_REPORT, SKIPPED, GradeRecord, describe_ids
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
    skipped: tuple[str, ...] = ()  # required ids the environment skips with the gold patch
    unreported: tuple[str, ...] = ()  # required ids no test of the gold run reports
    no_report: tuple[str, ...] = ()  # reps with no report ("gold rep 1"), left out per test


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
    skipped: list[str] = []  # required ids the environment skips with the gold patch
    unreported: list[str] = []  # required ids no test of the gold run reports
    no_report: list[str] = []  # reps whose run left no readable report ("empty rep 0")
    fixture: str | None = None  # the task's gold-gate fixture (flaky, broken-gold), if any
    lock_version: str = ""
    grader_version: str = ""
    rules: dict[str, int] = {}  # versions of the verdict rule, the exploits and the result rule
    gold_grades: list[str] = []  # grade keys, one per rep
    empty_grades: list[str] = []
    gold_resolved: list[bool | None] = []  # None: that rep's grade is missing
    empty_resolved: list[bool | None] = []
    exploits: dict[str, dict[str, Any]] = {}  # family -> status, caught_by, means, grade, why...
    exploitable: list[str] = []  # the families that resolved unflagged
    # A valid task outside the set's exploit sample (`exploit_sample` in set.yaml): the families
    # chosen that did not run on it, and why (the sample and the task's runner and layout).
    exploits_not_checked: list[str] = []
    exploit_sample: str = ""

    def body(self) -> dict[str, Any]:
        # Written only where a sample left families out: a verdict of a fully checked task is
        # stored as it always was (older harnesses and team caches hold and read those).
        out = super().body()
        for name in ("exploits_not_checked", "exploit_sample"):
            if not out.get(name):
                out.pop(name, None)
        return out

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


def _reported(g: GradeRecord) -> bool:
    """Whether the rep's run left a report to read tests from."""
    return g.outcome not in (NO_REPORT, INCONSISTENT)


def _silent(gold: Sequence[GradeRecord], empty: Sequence[GradeRecord]) -> tuple[str, ...]:
    return tuple(f"{name} rep {i}" for name, reps in (("gold", gold), ("empty", empty))
                 for i, g in enumerate(reps) if not _reported(g))


def _seen(gold: Sequence[GradeRecord], ids: Sequence[str], status: str) -> tuple[str, ...]:
    """The `ids` every gold rep with a report gives `status` (none when no rep has one)."""
    reps = [g for g in gold if _reported(g)]
    return tuple(t for t in ids if reps and all(g.tests.get(t, "missing") == status
                                                  for g in reps))


def _notes(gold: Sequence[GradeRecord], empty: Sequence[GradeRecord], silent: tuple[str, ...],
           skipped: tuple[str, ...]) -> str:
    """What every verdict says beside its reason: reps with no report, required tests the
    environment skips, ids that are not one test of the run."""
    parts = []
    if silent:
        detail = next((g.detail for g in (*gold, *empty) if not _reported(g) and g.detail), "")
        parts.append(f"{', '.join(silent)} left no report" + (f" ({detail[:200]})" if detail
                     else "") + ": a rep with no report says nothing about any test, so it is "
                     "left out of the per-test comparison")
    if skipped:
        parts.append(f"the environment skips {len(skipped)} required test(s) with the gold "
                     f"patch: {', '.join(skipped[:8])}" + (" ..." if len(skipped) > 8 else "")
                     + " (an imported row keeps a skipped PASS_TO_PASS test only where the "
                     "runner's log names the skip, as SWE-bench's parser reads it)")
    first = next((g for g in gold if _reported(g)), None)
    if first is not None and (ids := describe_ids(first.ids)):
        parts.append(ids)  # said here too: the gate is where users look first
    return "".join(f"; {p}" for p in parts)


def decide_tests(gold: Sequence[GradeRecord | None], empty: Sequence[GradeRecord | None],
                 fail_to_pass: Sequence[str], pass_to_pass: Sequence[str]) -> Decision:
    """The verdict from every rep's grade record; a None rep makes it incomplete."""
    if any(g is None for g in (*gold, *empty)):
        return Decision(INCOMPLETE, "some reps have no grade yet; run the gold target again")
    gold_ok = [g for g in gold if g is not None]
    empty_ok = [g for g in empty if g is not None]
    required = [*fail_to_pass, *pass_to_pass]
    silent = _silent(gold_ok, empty_ok)
    skipped, unreported = _seen(gold_ok, required, SKIPPED), _seen(gold_ok, required, "missing")
    notes = _notes(gold_ok, empty_ok, silent, skipped)

    def decision(verdict: str, why: str, dropped: dict[str, str] | None = None) -> Decision:
        return Decision(verdict, why + notes, dropped or {}, skipped, unreported, silent)

    gold_read = [g for g in gold_ok if _reported(g)]
    empty_read = [g for g in empty_ok if _reported(g)]
    f2p = {**_flips(gold_read, fail_to_pass), **_flips(empty_read, fail_to_pass)}
    if f2p:
        return decision(FLAKY, "FAIL_TO_PASS tests flip between reps: " + ", ".join(
            f"{t} ({how})" for t, how in sorted(f2p.items())[:8]))
    # A PASS_TO_PASS test passes with and without the fix, so every rep of both patches is a
    # sample of it: six runs find a flaky test far more surely than three.
    dropped = {t: f"flaky: {how} (gold and empty patch)" for t, how in
               _flips([*gold_read, *empty_read], pass_to_pass).items()}
    note = ("; dropped flaky PASS_TO_PASS: " + ", ".join(sorted(dropped)[:8])) if dropped else ""
    for name, reps in (("gold", gold_ok), ("empty", empty_ok)):
        if len({_resolved(g, dropped) for g in reps}) > 1:
            return decision(FLAKY, f"{name}-patch reps disagree on resolved{note}", dropped)
    if not _resolved(gold_ok[0], dropped):
        return decision(BROKEN_GOLD, (f"gold patch does not resolve: "
                                      f"{gold_ok[0].detail}")[:500] + note, dropped)
    if _resolved(empty_ok[0], dropped):
        return decision(PASSES_WITHOUT_FIX, "the tests pass with no patch at all" + note,
                        dropped)
    return decision(VALID, f"gold passes and the empty patch fails in all {len(gold_ok)} reps"
                    + note, dropped)


def decide(gold: Sequence[GradeRecord | None], empty: Sequence[GradeRecord | None]
           ) -> tuple[str, str]:
    """(verdict, why) with every test seen treated as FAIL_TO_PASS: any flip is flaky."""
    ids = sorted({t for g in (*gold, *empty) if g is not None for t in g.tests})
    d = decide_tests(gold, empty, ids, [])
    if d.verdict == FLAKY and not ids:
        return d.verdict, d.why
    return d.verdict, d.why.replace("FAIL_TO_PASS tests flip", "reps disagree on", 1)
