"""The gold gate's plan of a set in this process (its grade, exploit and verdict keys), and what
its exploit stage costs: said by `doit gold` and by `doit plan` (`exploit_stage_lines`)."""

from __future__ import annotations

import functools
from collections.abc import Collection

from evaluator.errors import EvalError
from evaluator.gold import ALL, GoldPlan, plan_gold, policy_text, price_exploits
from evaluator.pipeline import _context as ctx
from evaluator.settings import settings


@functools.cache
def gold_plans(name: str) -> dict[str, GoldPlan]:
    """Set `name`'s gold plan by task id (its lock loaded), with EVAL_EXPLOIT_TASKS applied."""
    loaded = ctx.load(name)
    assert loaded.task_set is not None and loaded.lock is not None
    return {p.task.id: p for p in plan_gold(loaded.task_set, loaded.lock, ctx.store(),
                                             asked_exploits(name))}


def asked_exploits(name: str) -> tuple[str, ...]:
    """The task ids of set `name` that EVAL_EXPLOIT_TASKS asks for (`all`, `task`, or
    `set/task` where several sets run)."""
    out = []
    for entry in settings.exploit_tasks:
        where, _, tid = entry.rpartition("/")
        if where in ("", name):
            out.append(tid)
    return tuple(out)


def exploit_stage_lines(name: str, invalid: Collection[str] = ()) -> list[str]:
    """What the gold gate's exploit stage of set `name` costs, for `doit plan` and `doit gold`:
    grades per task by runner and layout, the sample, sandbox time, what is not checked (of the
    tasks not found `invalid` by the gate)."""
    loaded = ctx.load(name)
    if loaded.task_set is None or loaded.lock is None:
        return []  # whoever asks says why the set cannot run
    try:
        plans = list(gold_plans(name).values())
        price = price_exploits(loaded.task_set, loaded.lock, plans, ctx.store(), invalid)
    except EvalError as exc:
        return [f"exploit stage of {name}: cannot be priced: {exc}"]
    if not price.families:
        return [f"exploit stage of {name}: none (`exploits: []` in set.yaml)"]
    per = loaded.task_set.spec.exploit_sample
    policy = policy_text(None if per == ALL else int(per))
    asked = asked_exploits(name)
    time = "" if price.seconds_per_grade is None else (
        f", about {_minutes(price.to_run * price.seconds_per_grade)} at "
        f"{price.seconds_per_grade:.0f} s a grade (the median of {price.timed_from})")
    gold_stage = sum(len(p.gold_keys) + len(p.empty_keys) for p in plans)
    lines = [f"exploit stage of {name}: up to {price.grades} sandbox grade(s) beside the gold "
             f"stage's {gold_stage} ({price.families} families on {len(price.checked)} of "
             f"{len(plans)} tasks: {policy}, `exploit_sample: {per}` in set.yaml"
             + (f"; on demand: {', '.join(asked)}" if asked else "") + "; only tasks the gold "
             f"stage finds valid run them); {price.decided} of {price.exploits} exploit(s) "
             f"decided, about {price.to_run} grade(s) to run{time}"]
    for stratum, s in price.strata.items():
        took = ("" if price.seconds_per_grade is None else
                f" (about {_minutes(s.grades_per_task * price.seconds_per_grade)})")
        lines.append(f"  {stratum}: {s.grades_per_task:.1f} sandbox grade(s) per task{took}; "
                     f"{s.checked} of {s.tasks} task(s) checked")
    if price.not_checked:
        more = ("" if price.seconds_per_grade is None else
                f", {_minutes(price.more * price.seconds_per_grade)}")
        lines.append(f"  not checked: {_ids(price.not_checked)} (about {price.more} grade(s) "
                     f"more{more}: `EVAL_EXPLOIT_TASKS=all doit gold:{name}` checks them, or "
                     "name some)")
    if per != ALL:
        lines.append(f"  checked: {_ids(price.checked)}")
    return lines


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} sandbox-minute(s)" if seconds < 7200 else (
        f"{seconds / 3600:.1f} sandbox-hour(s)")


def _ids(ids: tuple[str, ...], most: int = 12) -> str:
    shown = ", ".join(ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "")
