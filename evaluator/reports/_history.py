"""Results of any agent version, found through the store's index by agent name and identity.

The current plan only reaches the agent versions in evals/<set>.yaml; comparing with last week's
prompt needs the results that version left in the store. They keep the lock and grader versions
they were recorded with, so the guard refuses them unless those match.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from evaluator.errors import BadInputError
from evaluator.reports._collect import Collected
from evaluator.reports._compare import side
from evaluator.reports._inputs import Inputs
from evaluator.result import ResultRecord
from evaluator.store import Store


def load_results(store: Store, task_set: str, agent: str,
                 identity: str | None = None) -> list[ResultRecord]:
    """Every result record of `agent` on `task_set` in the index, optionally of one identity;
    a record that does not parse is left out (it may be any version's, hand-made or foreign)."""
    rows = store.select_readable(ResultRecord, task_set=task_set, subject=agent)
    return [r for r in rows if identity is None or r.agent_identity == identity]


def agent_identities(store: Store, task_set: str, agent: str) -> dict[str, int]:
    """Identity -> number of results, for every version of `agent` with results on the set."""
    return dict(sorted(Counter(r.agent_identity
                               for r in load_results(store, task_set, agent)).items()))


def rows_for(inputs: Inputs, collected: Collected, agent: str,
             identity: str | None) -> tuple[list[Mapping[str, Any]], dict[str, Any]]:
    """The rows one side of a comparison stands on, and how the comparison names it.

    Without an identity, an agent of the eval config gets the plan's rows (errors and pending
    attempts included, records carried over from an earlier lock version with unchanged pins
    counted under the current one). With an identity, or for an agent no longer configured,
    the results come from the index as recorded, one per task and sample.
    """
    current = inputs.plan.agents.get(agent)
    if current is not None and identity is None:
        rows: list[Mapping[str, Any]] = [c for c in collected.cells if c["agent"] == agent]
        return rows, side(agent, current.identity, any(c["simulated"] for c in rows), "plan")
    if identity is None:
        found = agent_identities(inputs.store, inputs.name, agent)
        if len(found) != 1:
            listed = ", ".join(f"{i} ({n} results)" for i, n in found.items()) or "none"
            raise BadInputError(f"agent {agent!r} is not in evals/{inputs.name}.yaml; pass the "
                                f"identity of the version to compare (in the store: {listed})")
        identity = next(iter(found))
    rows = list(_one_per_sample(load_results(inputs.store, inputs.name, agent, identity), inputs))
    if not rows:
        raise BadInputError(f"no results of agent {agent!r} with identity {identity} on task "
                            f"set {inputs.name!r} in {inputs.store.root}")
    simulated = any(r["simulated"] for r in rows)
    return rows, side(agent, identity, simulated, "store")


def _one_per_sample(results: list[ResultRecord], inputs: Inputs) -> list[Mapping[str, Any]]:
    # A sample graded twice (say, before and after a grader change) must count once; the one
    # closest to the current lock and grader wins, then the newest, then the key (a tie-break
    # that does not depend on the order the index returns rows in).
    def rank(r: ResultRecord) -> tuple[bool, bool, float, str]:
        return (r.lock_version == inputs.lock_version,
                r.grader_version == inputs.grader_version, r.created, r.key)

    best: dict[tuple[str, int], ResultRecord] = {}
    for r in results:
        slot = (r.task_id, r.sample_idx)
        if slot not in best or rank(r) > rank(best[slot]):
            best[slot] = r
    # The guard reads rows as mappings: the plan's report rows, or result records as stored.
    return [best[s].model_dump() for s in sorted(best)]
