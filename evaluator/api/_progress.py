"""Where a run stands, from the store (what is done) and its doit log (what is in flight).

The store says which attempts have results and which hit infra errors. Only doit knows what it
has started: its reporter prints `.  attempt:<set>/<label>` and `.  evalgrade:<set>/<label>`
as targets start, and the worker marks where each of its starts begins in the log, so a target a
dead worker left half done is not counted as running.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from evaluator.attempts import AttemptRecord, EvalPlan, EvalState, PlannedAttempt, unpriced
from evaluator.executor import waiting_since
from evaluator.store import Store

WORKER_MARK = "=== evaluator.api worker"
COUNTS = ("planned", "done", "running", "pending", "errors", "quarantined", "resolved", "failed",
          "policy")


def started_targets(log: Path, task_set: str) -> dict[str, tuple[bool, bool]]:
    """label -> (attempt started, grading started), in the log's last worker segment."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except FileNotFoundError:
        return {}
    marks = [i for i, line in enumerate(lines) if line.startswith(WORKER_MARK)]
    segment = lines[marks[-1] + 1:] if marks else lines
    found: dict[str, tuple[bool, bool]] = {}
    for line in segment:
        for kind, grading in (("attempt", False), ("evalgrade", True)):
            prefix = f".  {kind}:{task_set}/"
            if line.startswith(prefix):
                label = line[len(prefix):].strip()
                attempt, grade = found.get(label, (False, False))
                found[label] = (attempt or not grading, grade or grading)
    return found


def _failed_since(store: Store, kind: str, key: str, since: float) -> bool:
    return any(e.get("created", 0) >= since for e in store.errors(kind, key))


def _in_flight(store: Store, pa: PlannedAttempt, attempt: AttemptRecord | None,
               started: tuple[bool, bool] | None, since: float) -> bool:
    if started is None:
        return False
    attempt_started, grade_started = started
    if attempt is None:
        # Grading starts once the attempt target ends: if it has started, the attempt ended
        # without a record (infra error, budget, quarantine).
        return attempt_started and not grade_started and not _failed_since(
            store, "attempt", pa.key, since)
    return not _failed_since(store, "grade", pa.grade_key(attempt.patch), since)


def progress(store: Store, plan: EvalPlan, *, log: Path | None = None,
             since: float | None = None) -> dict[str, Any]:
    """Counts of the run's planned attempts and the dollars its attempts cost so far.

    done: graded (resolved + failed + policy); running: started by the current worker and not
    ended; errors: ended by infra errors (quarantined ones included), to be retried by a later
    run; pending: the rest. Pass `log` and `since` (the current worker's start) while the run
    runs.
    """
    started = started_targets(log, plan.task_set.name) if log is not None else {}
    counts = dict.fromkeys(COUNTS, 0)
    cost, unknown = 0.0, False
    now, oldest = time.time(), 0.0
    marks = waiting_since(store.root, since) if since is not None else {}
    # From the index a part at a time, not a record read per attempt.
    for pa, state in ((pa, state) for part, state in EvalState.parts(store, plan)
                      for pa in part):
        counts["planned"] += 1
        status, result = state.status(pa)
        if result is not None:
            counts["done"] += 1
            counts[status] += 1
            cost += result.cost_usd
            unknown = unknown or not result.priced
            continue
        attempt = store.read(AttemptRecord, pa.key) if status == "ungraded" else None
        if attempt is not None:
            cost += attempt.cost["total_usd"]
            unknown = unknown or unpriced(attempt.cost)
        if pa.key in marks:  # handed to the executor, waiting for a sandbox slot or a node
            oldest = max(oldest, now - marks[pa.key])
        elif since is not None and attempt is None and pa.label not in started:
            oldest = max(oldest, now - since)  # doit has not started it yet
        if since is not None and _in_flight(store, pa, attempt, started.get(pa.label), since):
            counts["running"] += 1
        elif status in ("error", "quarantined"):
            counts["errors"] += 1
            counts["quarantined"] += status == "quarantined"
        else:
            counts["pending"] += 1
    # An unpriced model's dollars are unknown: the run's cost is too, not the sandboxes' sum.
    return {"counts": counts, "cost_usd": None if unknown else round(cost, 6),
            "cost_unpriced": unknown,
            "attempt_queue_age_s": round(oldest, 3) if since is not None else None}
