"""A run as the API shows it: its row, plus counts and cost from the store while it is active."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from evaluator.api._db import Run
from evaluator.api._models import RunCounts, RunView, Worker
from evaluator.api._progress import progress
from evaluator.api._runplan import run_plan
from evaluator.api._settings import Settings
from evaluator.errors import EvalError
from evaluator.store import Store


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


def _live(settings: Settings, run: Run) -> tuple[dict[str, Any] | None, str | None]:
    """(counts and cost, why there are none) computed from the store now."""
    try:
        plan = run_plan(settings, run.task_set, run.agent, run.samples, run.isolation)
    except EvalError as exc:
        return None, f"{type(exc).__name__}: {exc}"
    current = plan.agents[run.agent].identity
    if current != run.identity:
        # The attempts of the version this run evaluates have other keys than today's plan.
        return None, (f"agent {run.agent!r} changed since this run was scheduled (now version "
                      f"{current}); counts of version {run.identity} are not available")
    running = run.status == "running"
    return progress(Store(settings.store), plan, log=settings.log_path(run.id) if running else None,
                    since=run.segment_at if running else None), None


def run_view(settings: Settings, run: Run) -> RunView:
    if run.active or run.counts is None:
        snapshot, why = _live(settings, run)
        snapshot = snapshot or run.counts
    else:
        snapshot, why = run.counts, None
    first_start = run.started_at if run.started_at is not None else time.time()
    return RunView(
        id=run.id, status=run.status, cause=run.cause, note=run.note, task_set=run.task_set,
        agent=run.agent, agent_version=f"{run.agent}@{run.identity}", samples=run.samples,
        isolation=run.isolation, created_at=_iso(run.created_at) or "", started_at=_iso(run.started_at),
        finished_at=_iso(run.finished_at),
        queue_age_s=round(max(0.0, first_start - run.created_at), 3),
        attempt_queue_age_s=snapshot.get("attempt_queue_age_s") if snapshot and run.active
        else None,
        counts=RunCounts(**snapshot["counts"]) if snapshot else None,
        cost_usd=snapshot["cost_usd"] if snapshot else None,
        cost_unpriced=bool(snapshot and snapshot.get("cost_unpriced")), counts_error=why,
        worker=Worker(pid=run.pid, starts=run.starts))
