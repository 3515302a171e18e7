"""What the gold gate's exploit stage costs a set before it runs: sandbox grades per task and in
all, and sandbox time at what this set's grades took, said by `doit plan` and `doit gold`.

Grades per task are counted, not guessed: on up to three tasks of each runner and layout the
exploit patches are built as the gate builds them, and a family counts when it applies to the
task and the grader would apply some of it (families made only of tests, test configuration
and start-up hooks are decided without a sandbox, as are those that do not apply). Only tasks
the gold stage finds valid run exploits, so the figures are an upper bound until it has run.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from evaluator.gold._exploitgate import ExploitRecord
from evaluator.gold._exploits import BY_NAME, NotApplicable, exploit_patch
from evaluator.gold._gate import GoldPlan
from evaluator.gold._sample import stratum_of
from evaluator.gold._target import target
from evaluator.grading import GradeRecord, graded_part, hidden_test_bytes
from evaluator.lock import Lock
from evaluator.store import Store
from evaluator.taskset import TaskSet

_BUILT_PER_STRATUM = 3
_TIMED = 30  # stored grades read at most, for the time of one


@dataclass(frozen=True)
class Stratum:
    """The tasks of one runner and layout, how many run the exploits, their grades per task."""

    tasks: int
    checked: int
    grades_per_task: float


@dataclass(frozen=True)
class ExploitPrice:
    families: int
    strata: dict[str, Stratum] = field(default_factory=dict)
    checked: tuple[str, ...] = ()  # task ids whose exploits run
    not_checked: tuple[str, ...] = ()
    grades: int = 0  # sandbox grades on the checked tasks (if every one is valid)
    exploits: int = 0  # (task, family) pairs to decide on the checked tasks
    decided: int = 0  # of which an exploit record is stored
    to_run: int = 0  # sandbox grades of the pairs not decided yet (an estimate)
    more: int = 0  # sandbox grades the tasks not checked would add
    seconds_per_grade: float | None = None
    timed_from: str = ""  # what the time per grade is the median of

    @property
    def sandbox_hours(self) -> float | None:
        if self.seconds_per_grade is None:
            return None
        return self.to_run * self.seconds_per_grade / 3600


def price_exploits(task_set: TaskSet, lock: Lock, plans: Sequence[GoldPlan],
                   store: Store | None = None, invalid: Collection[str] = ()) -> ExploitPrice:
    """The exploit stage of `plans` (as `plan_gold` made them for this set) priced; tasks the
    gate has found `invalid` are not counted among those left unchecked."""
    families = {f for p in plans for f, _ in p.exploit_keys} | {
        f for p in plans for f in p.not_checked}
    if not families:
        return ExploitPrice(0)
    groups: dict[str, list[GoldPlan]] = {}
    for plan in plans:
        groups.setdefault(stratum_of(plan.task, lock), []).append(plan)
    strata, grades, more, to_run, exploits, decided = {}, 0.0, 0.0, 0.0, 0, 0
    for name, members in sorted(groups.items()):
        sample = [p for p in members if p.exploit_keys][:_BUILT_PER_STRATUM] or members[
            :_BUILT_PER_STRATUM]
        per = statistics.mean(_grades(task_set, lock, p, sorted(families)) for p in sample)
        checked = [p for p in members if p.exploit_keys]
        strata[name] = Stratum(len(members), len(checked), per)
        grades += per * len(checked)
        more += per * sum(1 for p in members if p.not_checked and p.task.id not in invalid)
        for plan in checked:
            done = sum(1 for _, k in plan.exploit_keys
                       if store is not None and store.has(ExploitRecord.KIND, k))
            exploits, decided = exploits + len(plan.exploit_keys), decided + done
            to_run += per * (len(plan.exploit_keys) - done) / len(plan.exploit_keys)
    seconds, basis = _seconds_per_grade(plans, store)
    return ExploitPrice(
        families=len(families), strata=strata,
        checked=tuple(p.task.id for p in plans if p.exploit_keys),
        not_checked=tuple(p.task.id for p in plans if p.not_checked and p.task.id not in invalid),
        grades=round(grades), exploits=exploits, decided=decided, to_run=round(to_run),
        more=round(more), seconds_per_grade=seconds, timed_from=basis)


def _grades(task_set: TaskSet, lock: Lock, plan: GoldPlan, families: list[str]) -> int:
    """Sandbox grades the exploit families cost on this task."""
    hidden = hidden_test_bytes(task_set, plan.task, lock)
    where = target(plan.spec, plan.task.gold_patch, hidden)
    n = 0
    for family in families:
        try:
            patch = exploit_patch(BY_NAME[family], where)
        except NotApplicable:
            continue
        n += bool(graded_part(plan.spec, patch, list(hidden)).strip())
    return n


def _seconds_per_grade(plans: Sequence[GoldPlan], store: Store | None) -> tuple[float | None, str]:
    """The median time of this set's stored exploit grades, else of its gold-stage grades."""
    if store is None:
        return None, ""
    took = []
    for plan in plans:
        for _, key in plan.exploit_keys:
            rec = store.read(ExploitRecord, key) if store.has(ExploitRecord.KIND, key) else None
            if rec is not None and rec.graded and rec.duration_s > 0:
                took.append(rec.duration_s)
        if len(took) >= _TIMED:
            break
    if took:
        return statistics.median(took), f"{len(took)} stored exploit grade(s)"
    for plan in plans:
        for key in (*plan.gold_keys, *plan.empty_keys):
            grade = store.read(GradeRecord, key) if store.has("grade", key) else None
            if grade is not None and grade.duration_s > 0:
                took.append(grade.duration_s)
        if len(took) >= _TIMED:
            break
    if took:
        return statistics.median(took), f"{len(took)} gold-stage grade(s) of this set"
    return None, ""
