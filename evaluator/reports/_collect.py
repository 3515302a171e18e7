"""One row per planned attempt: its status, its result and what it cost, checked against the lock.

The plan, not a scan of the store, decides which records count: it is what `doit eval` runs, so
a report and an eval summary never disagree on what is done, and records of other agent
versions, other grader versions or other pins cannot leak into the numbers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evaluator.attempts import AttemptRecord, attempt_status, unpriced
from evaluator.errors import BadInputError, StaleLockError
from evaluator.grading import GradeRecord
from evaluator.reports._inputs import Inputs
from evaluator.reports._pinning import GRADED, carried_over, check_result, check_verdict
from evaluator.result import FLAGGED, RESOLVED, ResultRecord, Reviews, flag_lines
from evaluator.subjects import Subject, agent_subject, prediction_subjects, subject_cells

_MAX_PROBLEMS = 30


@dataclass(frozen=True)
class Collected:
    """Rows for every planned attempt, the records behind them, and notes for the reader."""

    cells: list[dict[str, Any]]
    attempts: dict[str, AttemptRecord]  # attempt key -> attempt record
    grades: dict[str, GradeRecord]  # grade key -> grade record
    notes: list[str] = field(default_factory=list)
    subjects: dict[str, Subject] = field(default_factory=dict)  # agents and predictions, by name


def collect(inputs: Inputs) -> Collected:
    """Read every planned attempt's records; StaleLockError when any differs from the lock or
    does not parse as its kind (each such record is one of the problems it lists)."""
    store, lock, grader = inputs.store, inputs.lock, inputs.grader_version
    cells: list[dict[str, Any]] = []
    attempts: dict[str, AttemptRecord] = {}
    grades: dict[str, GradeRecord] = {}
    problems: list[str] = []
    carried: Counter[str] = Counter()
    for tid, verdict in sorted(inputs.gate.items()):
        problems += check_verdict(tid, verdict, lock, grader)
        if old := carried_over(verdict.lock_version, inputs.lock_version):
            carried[old] += 1
    for pa in inputs.plan.attempts:
        try:
            status, result = attempt_status(store, inputs.plan, pa)
            attempt = store.read(AttemptRecord, pa.key)
            grade = store.read(GradeRecord, result.grade) if result and attempt else None
        except BadInputError as exc:  # hand-edited or foreign: refused with the rest, by name
            problems.append(str(exc))
            continue
        if attempt is not None:
            attempts[pa.key] = attempt
        if result is not None and attempt is not None:
            problems += check_result(pa, lock, grader, attempt, result, grade)
            if grade is not None:
                grades[result.grade] = grade
            if old := carried_over(result.lock_version, inputs.lock_version):
                carried[old] += 1
        errors = store.error_count("attempt", pa.key)
        cells.append(_cell(inputs, pa, status, attempt, result, errors))
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
            cells += subject_cells(store, inputs.task_set, lock, inputs.gate, s,
                                   inputs.lock_version)
    cells = [reviewed(c, inputs.reviews) for c in cells]
    notes = [f"{n} record(s) were made under lock version {v}, with the same pins for their "
             f"task as now; they count for lock version {inputs.lock_version}"
             for v, n in sorted(carried.items())]
    notes += _unreached(inputs, cells)
    return Collected(cells, attempts, grades, notes, subjects)


def _cell(inputs: Inputs, pa: Any, status: str, attempt: AttemptRecord | None,
          result: ResultRecord | None, errors: int) -> dict[str, Any]:
    graded = result is not None and status in GRADED
    source = result if graded else attempt
    cost = float(source.cost["total_usd"]) if source and source.cost else 0.0
    simulated = pa.agent.simulated or bool(source and source.simulated)
    return {
        "task_set": inputs.name, "agent": pa.agent.name, "identity": pa.agent.identity,
        "simulated": simulated, "task_id": pa.task.id, "sample_idx": pa.sample_idx,
        "status": status, "graded": graded,
        "resolved": bool(graded and result is not None and result.resolved),
        "cost_usd": cost, "infra_errors": errors,
        # An unpriced model's dollars are unknown: its cost is shown as unpriced, never $0.
        "priced": not (source is not None and unpriced(source.cost)),
        # Found by a key made from the current pins: it belongs to the current lock.
        "lock_version": inputs.lock_version if graded else None,
        "recorded_lock_version": result.lock_version if result else None,
        "grader_version": result.grader_version if result else None,
        "attempt": pa.key, "result": result.key if result else None,
        "grade": result.grade if result else None,
        "exit_reason": attempt.exit_reason if attempt else None,
        "violations": [v.get("reason") for v in (result.violations if result else [])],
        "flags": flag_lines(result),
    }


def reviewed(cell: dict[str, Any], reviews: Reviews) -> dict[str, Any]:
    """The cell as the set's reviews count it: a flagged resolve a person accepted counts as
    resolved, one they rejected as a policy failure, one not reviewed yet as flagged."""
    status, review = reviews.counted(cell["status"], cell.get("grade"))
    return {**cell, "status": status, "resolved": status == RESOLVED and cell["graded"],
            "flagged": status == FLAGGED, "review": review.decision if review else None,
            "reviewed_by": review.by if review else None}


def _unreached(inputs: Inputs, cells: list[dict[str, Any]]) -> list[str]:
    """Say so when the store holds results of this set that the current plan does not reach."""
    used = {c["result"] for c in cells if c["result"]}
    others = [r for r in inputs.store.select_readable(ResultRecord, task_set=inputs.name)
              if r.key not in used]
    if not others:
        return []
    agents = sorted({r.subject for r in others})
    return [f"{len(others)} other result record(s) of {inputs.name!r} in the store are not "
            f"part of this report (other agent versions, grader versions, harness code or "
            f"pins; agents: {', '.join(agents)}); `compare` can still reach them by agent "
            f"identity"]
