"""Leaderboard rows: one per subject (an agent or a predictions file), from the rows of its
planned attempts on valid tasks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from evaluator.subjects import Subject

# Infra states: the attempt has no grade yet, through no fault of the agent. They are counted
# apart and never as failures, or a flaky Docker daemon would read as a worse agent.
NOT_COUNTED = ("pending", "error", "quarantined", "ungraded")
DECIMALS = 6


def outcomes_by_task(cells: Iterable[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Task id -> 0/1 per graded sample, in sample order (policy failures are 0)."""
    out: dict[str, list[int]] = {}
    for c in sorted(cells, key=lambda c: (c["task_id"], c["sample_idx"])):
        if c["graded"]:
            out.setdefault(c["task_id"], []).append(int(c["resolved"]))
    return out


def leaderboard_rows_from(cells: Sequence[Mapping[str, Any]], subjects: Mapping[str, Subject],
                          samples: int, *, alpha: float = 0.05) -> list[dict[str, Any]]:
    """One row per subject (an agent or a predictions file), best resolve rate first (ties and
    subjects without a rate by name)."""
    rows = [_row(subject, [c for c in cells if c["agent"] == name], samples, alpha)
            for name, subject in subjects.items()]
    return sorted(rows, key=lambda r: (r["resolve_rate"] is None, -(r["resolve_rate"] or 0.0),
                                       r["agent"]))


def _row(agent: Subject, mine: Sequence[Mapping[str, Any]], samples: int, alpha: float) -> dict[str, Any]:
    # Imported here: scipy would add half a second to every `doit` run that loads report_tasks.
    from evaluator.stats import mean_pass_at_k, resolve_rate

    count = {s: sum(c["status"] == s for c in mine)
             for s in ("resolved", "failed", "policy", *NOT_COUNTED)}
    per_task = outcomes_by_task(mine)
    row: dict[str, Any] = {
        "agent": agent.name,
        "identity": agent.identity,
        "simulated": agent.simulated or any(c["simulated"] for c in mine),
        "planned": len(mine),
        "attempts": sum(c["graded"] for c in mine),
        **count,
        "errors": sum(count[s] for s in NOT_COUNTED),
        "tasks": len(per_task),
        "resolve_rate": None, "rate_lo": None, "rate_hi": None,
    }
    if per_task:
        # The task is the unit: each task scores the mean of its samples, and the interval is
        # the task-clustered one, not a binomial over attempts.
        est = resolve_rate([sum(v) / len(v) for v in per_task.values()], alpha=alpha)
        row.update(resolve_rate=_r(est.mean), rate_lo=_r(est.lo), rate_hi=_r(est.hi))
    cost = sum(c["cost_usd"] for c in mine)
    row["cost_usd"] = _r(cost)
    row["cost_per_solved_usd"] = _r(cost / count["resolved"]) if count["resolved"] else None
    # False when a model's dollars are unknown (price: unpriced): the cost is sandboxes only.
    row["priced"] = all(c.get("priced", True) for c in mine)
    if samples > 1:
        for k in range(1, samples + 1):
            # Unbiased pass@k needs n >= k samples of a task; tasks that lost samples to infra
            # errors take part only for the k they still support.
            pairs = [(len(v), sum(v)) for v in per_task.values() if len(v) >= k]
            row[f"pass@{k}"] = _r(mean_pass_at_k(pairs, k)) if pairs else None
    return row


def _r(x: float) -> float:
    # Rounded, and -0.0 made 0.0, so summary.json is byte-stable across platforms.
    return round(float(x), DECIMALS) + 0.0
