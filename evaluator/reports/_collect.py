"""One row per planned attempt: its status, its result and what it cost, checked against the lock.

The plan, not a scan of the store, decides which records count: it is what `doit eval` runs, so
a report and an eval summary never disagree on what is done, and records of other agent
versions, other grader versions or other pins cannot leak into the numbers.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evaluator.attempts import EvalState
from evaluator.errors import StaleLockError
from evaluator.reports._cells import Cell
from evaluator.reports._inputs import Inputs
from evaluator.reports._pinning import GRADED, carried_over, check_result, check_verdict
from evaluator.subjects import Subject, agent_subject, prediction_subjects, subject_cells
from evaluator.version import harness_version

_MAX_PROBLEMS = 30
_PART = 1000


@dataclass(frozen=True)
class Collected:
    """Rows for every planned attempt, and notes for the reader."""

    cells: list[Cell]
    notes: list[str] = field(default_factory=list)
    subjects: dict[str, Subject] = field(default_factory=dict)  # agents and predictions, by name


_ATTEMPT = ("exit_reason", "simulated", "cost.total_usd", "cost.model_usd:type")
_RESULT = ("task_set", "task_id", "subject", "sample_idx", "attempt", "agent_identity", "status",
           "resolved", "grade", "grader_version", "lock_version", "simulated", "violations",
           "cost.total_usd", "cost.model_usd:type")
_GRADE = ("image", "grader_version", "resolved")


def collect(inputs: Inputs) -> Collected:
    """One row per planned attempt, from the index in one pass per record kind (no record
    file is read); StaleLockError when any record differs from the lock (each is one of the
    problems it lists)."""
    store, lock, grader = inputs.store, inputs.lock, inputs.grader_version
    problems: list[str] = []
    carried: Counter[str] = Counter()
    for tid, verdict in sorted(inputs.gate.items()):
        problems += check_verdict(tid, verdict, lock, grader)
        if old := carried_over(verdict.lock_version, inputs.lock_version):
            carried[old] += 1
    cells: list[Cell] = []
    # One part's rows held at a time; parts of 1,000 (not 5,000) left the report 15 MB less
    # at 100,000 attempts (its transient dicts interleaved with the rows it keeps).
    for part, state in EvalState.parts(store, inputs.plan, _PART):
        attempts = {k: v for k, *v in store.index.fields("attempt", _ATTEMPT,
                                                         keys=state.attempts)}
        results = {k: dict(zip(_RESULT, v, strict=True))
                   for k, *v in store.index.fields("result", _RESULT, keys=state.results)}
        grades = {k: dict(zip(_GRADE, v, strict=True)) for k, *v in store.index.fields(
            "grade", _GRADE, keys={r["grade"] for r in results.values() if r["grade"]})}
        for pa in part:
            status, stored = state.status(pa)
            result = None
            if stored is not None:
                key = state.result_key(pa)
                result = results[key]
                problems += check_result(pa, lock, grader, state.attempts[pa.key].patch,
                                         {**result, "key": key}, grades.get(result["grade"]))
                if old := carried_over(result["lock_version"], inputs.lock_version):
                    carried[old] += 1
            cells.append(_cell(inputs, pa, status, attempts.get(pa.key), result,
                               state.errors.get(pa.key, 0), state.result_key(pa)))
    if problems:
        shown = problems[:_MAX_PROBLEMS]
        if len(problems) > len(shown):
            shown.append(f"... and {len(problems) - len(shown)} more")
        raise StaleLockError(f"records in {store.root} differ from the inputs the lock of "
                             f"{inputs.name!r} pins (version {inputs.lock_version})", shown)
    # Graded predictions files (`evaluator predictions grade`) are subjects beside the agents.
    subjects = {n: agent_subject(a) for n, a in inputs.plan.agents.items()}
    for n, s in prediction_subjects(store, inputs.name).items():
        if n not in subjects:
            subjects[n] = s
            cells += [Cell(**c) for c in subject_cells(store, inputs.task_set, lock, inputs.gate,
                                                       s, inputs.lock_version)]
    notes = [f"{n} record(s) were made under lock version {v}, with the same pins for their "
             f"task as now; they count for lock version {inputs.lock_version}"
             for v, n in sorted(carried.items())]
    notes += _unreached(inputs, cells)
    notes += _redecided(inputs, cells)
    return Collected(cells, notes, subjects)


def _cell(inputs: Inputs, pa: Any, status: str, attempt: list[Any] | None,
          result: dict[str, Any] | None, errors: int, result_key: str | None) -> Cell:
    graded = result is not None and status in GRADED
    if graded and result is not None:
        cost, model_usd, simulated = result["cost.total_usd"], result["cost.model_usd:type"], \
            result["simulated"]
    elif attempt is not None:
        _, simulated, cost, model_usd = attempt
    else:
        cost = model_usd = simulated = None
    violations = json.loads(result["violations"]) if result and result["violations"] else []
    return Cell(
        task_set=inputs.name, agent=pa.agent.name, identity=pa.agent.identity,
        simulated=pa.agent.simulated or bool(simulated), task_id=pa.task.id,
        sample_idx=pa.sample_idx, status=status, graded=graded,
        resolved=bool(graded and result is not None and result["resolved"]),
        cost_usd=float(cost or 0.0), infra_errors=errors,
        # An unpriced model's dollars are unknown: its cost is shown as unpriced, never $0.
        priced=model_usd != "null",
        # Found by a key made from the current pins: it belongs to the current lock.
        lock_version=inputs.lock_version if graded else None,
        # Values that repeat over the rows are held once (the index gives a new string a row).
        recorded_lock_version=_once(result["lock_version"]) if result else None,
        grader_version=_once(result["grader_version"]) if result else None,
        attempt=pa.key, result=result_key if result else None,
        grade=result["grade"] if result else None,
        exit_reason=_once(attempt[0]) if attempt else None,
        violations=tuple(_once(v.get("reason")) for v in violations if isinstance(v, dict)),
    )


def _redecided(inputs: Inputs, cells: list[Cell]) -> list[str]:
    """Early cutoff, said: results decided again after a contract of grading or of the rule
    moved (a harness upgrade re-grades, it never re-runs an agent), how many kept the outcome
    they had and which changed. One indexed query of the set's results, their versions only."""
    current = {c["attempt"]: c for c in cells if c.get("result")}
    older: dict[str, tuple[float, str, str]] = {}
    # Streamed from the index (a list of the set's 100,000 results was 50 MB at once).
    for key, attempt, grader, rule, status, created in inputs.store.index.fields(
            "result", ("attempt", "grader_version", "result_version", "status",
                       "created"), task_set=inputs.name):
        cell = current.get(attempt)
        if cell is None or key == cell["result"]:
            continue
        version = f"{grader or '?'} / {rule or '?'}"
        if attempt not in older or (created or 0) > older[attempt][0]:
            older[attempt] = (created or 0, version, status)
    if not older:
        return []
    changed = sorted(f"{current[a]['agent']}/{current[a]['task_id']}/{current[a]['sample_idx']} "
                     f"({status} -> {current[a]['status']})"
                     for a, (_, _, status) in older.items() if status != current[a]["status"])
    froms = ", ".join(sorted({v for _, v, _ in older.values()}))
    shown = "; changed: " + ", ".join(changed[:10]) + (" ..." if len(changed) > 10 else "")
    return [f"{len(older)} result(s) were decided again under {inputs.grader_version} / "
            f"{harness_version('result')} (before: {froms}); {len(older) - len(changed)} kept "
            f"their outcome" + (shown if changed else "")]


def _once(value: Any) -> Any:
    return sys.intern(value) if isinstance(value, str) else value


def _unreached(inputs: Inputs, cells: list[Cell]) -> list[str]:
    """Say so when the store holds results of this set that the current plan does not reach."""
    used = {c["result"] for c in cells if c["result"]}
    # Only results as this harness writes them (a hand-made or foreign record is no result).
    others = [subject for key, subject, status in inputs.store.index.fields(
        "result", ("subject", "status"), task_set=inputs.name)
        if key not in used and status in GRADED and isinstance(subject, str)]
    if not others:
        return []
    agents = sorted({str(s) for s in others})
    return [f"{len(others)} other result record(s) of {inputs.name!r} in the store are not "
            f"part of this report (other agent versions, grader or rule versions, or "
            f"pins; agents: {', '.join(agents)}); `compare` can still reach them by agent "
            f"identity"]
