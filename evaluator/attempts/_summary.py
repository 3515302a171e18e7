"""Where an eval stands: per agent, planned, done, resolved, failed, policy, errors, cost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.attempts._plan import EvalPlan, quarantined
from evaluator.attempts._record import AttemptRecord
from evaluator.attempts._state import EvalState
from evaluator.result import ResultRecord
from evaluator.store import Store


def unpriced(cost: Mapping[str, Any] | None) -> bool:
    """Whether a record's cost is unknown: its model is unpriced, so `total_usd` holds the
    sandbox's dollars alone and must be shown as unpriced, never as the attempt's cost."""
    return bool(cost) and cost is not None and "model_usd" in cost and cost["model_usd"] is None


def attempt_status(store: Store, plan: EvalPlan, pa: Any) -> tuple[str, ResultRecord | None]:
    """(status, result record): pending, error, quarantined, ungraded, or the result's status.
    A record under the plan's keys that does not parse is a BadInputError naming it."""
    attempt = store.read(AttemptRecord, pa.key)
    if attempt is None:
        if quarantined(store, plan.spec, pa.key):
            return "quarantined", None
        return ("error" if store.error_count("attempt", pa.key) else "pending"), None
    result = store.read(ResultRecord, pa.result_key(attempt.patch))
    return (result.status, result) if result else ("ungraded", None)


def summarize(store: Store, plan: EvalPlan) -> list[dict[str, Any]]:
    """Per agent: planned, each status's count, and the dollars of its graded attempts; from
    the index a part at a time (`EvalState.parts`), not one record read per attempt."""
    rows: dict[str, dict[str, Any]] = {
        name: {"agent": name, "planned": 0, "resolved": 0, "failed": 0, "policy": 0,
                   "pending": 0, "ungraded": 0, "error": 0, "quarantined": 0, "cost_usd": 0.0,
                   "simulated": agent.simulated,
                   "priced": agent.spec.model.price != "unpriced"}
            for name, agent in plan.agents.items()}
    for part, state in EvalState.parts(store, plan):
        for pa in part:
            row = rows[pa.agent.name]
            row["planned"] += 1
            status, result = state.status(pa)
            row[status] += 1
            if result is not None:
                row["cost_usd"] += result.cost_usd
                row["priced"] = row["priced"] and result.priced
    for row in rows.values():
        row["cost_usd"] = round(row["cost_usd"], 6)
    return list(rows.values())


def format_summary(rows: list[dict[str, Any]]) -> str:
    cols = ("planned", "resolved", "failed", "policy", "pending", "error", "quarantined")
    out = [f"{'agent':30}" + "".join(f"{c:>12}" for c in cols) + f"{'cost':>12}"]
    for r in rows:
        name = r["agent"] + (" (simulated)" if r["simulated"] else "")
        cost = f"{r['cost_usd']:>12.4f}" if r.get("priced", True) else f"{'unpriced':>12}"
        out.append(f"{name:30}" + "".join(f"{r[c]:>12}" for c in cols) + cost)
    return "\n".join(out)
