"""Paired comparisons of agents, behind the comparability guard, decided together.

The comparisons of one report are one family: Holm's procedure over their deciding p-values
keeps the chance of any false "better" or "worse" among them at most alpha. A comparison made
on its own (`compare`, the CI gate) is a family of one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evaluator.hashing import canonical_json
from evaluator.lock import Lock
from evaluator.reports._guard import Comparability, Row, comparability

if TYPE_CHECKING:
    from evaluator.stats import Decision

Looker = Callable[[dict[str, Any], dict[str, Any], Comparability], dict[str, Any]]


@dataclass(frozen=True)
class Pending:
    """A comparison past (or refused by) the guard, not yet decided."""

    a: dict[str, Any]
    b: dict[str, Any]
    guard: Comparability
    seed: str


def side(agent: str, identity: str | None, simulated: bool, source: str) -> dict[str, Any]:
    """How a comparison names one of its agents."""
    return {"agent": agent, "identity": identity, "simulated": simulated, "source": source}


def seed_material(identity_a: str | None, identity_b: str | None, lock_version: str,
                  tasks: Iterable[str]) -> str:
    """The bootstrap's seed: the same two agent versions on the same tasks of the same lock
    always draw the same resamples, so the same query gives the same interval."""
    return canonical_json({"a": identity_a, "b": identity_b, "lock_version": lock_version,
                           "tasks": sorted(tasks)}).decode()


def pending(a_rows: Iterable[Row], b_rows: Iterable[Row], lock: Lock, *, a: dict[str, Any],
            b: dict[str, Any], valid_tasks: Collection[str] | None) -> Pending:
    guard = comparability(a_rows, b_rows, lock, valid_tasks=valid_tasks,
                          names=(a["agent"], b["agent"]))
    return Pending(a, b, guard, seed_material(a["identity"], b["identity"], lock.version,
                                              guard.tasks))


def decide(items: list[Pending], *, alpha: float, n_boot: int, decision: Decision,
           looker: Looker | None = None) -> list[dict[str, Any]]:
    """B against A (`delta` = B - A) for each item, as JSON-able dicts, the comparable ones
    decided as one family; a refusal carries every reason and no number at all (a figure next
    to "refused" gets quoted without it)."""
    from evaluator.stats import paired_comparisons  # scipy: kept off the `doit` load path

    go = [p for p in items if p.guard.comparable]
    results = iter(paired_comparisons([(p.guard.a, p.guard.b, p.seed) for p in go],
                                      n_boot=n_boot, alpha=alpha, decision=decision)
                   if go else [])
    out = []
    for p in items:
        head: dict[str, Any] = {"a": p.a, "b": p.b, "left_out": p.guard.left_out}
        if not p.guard.comparable:
            out.append({**head, "refused": True, "reasons": list(p.guard.reasons)})
            continue
        g = p.guard
        samples = sorted({len(v) for v in (*g.a.values(), *g.b.values())})
        looks = looker(p.a, p.b, g) if looker is not None else None
        out.append({**head, "refused": False, "reasons": [], **next(results).to_dict(),
                    "tasks": list(g.tasks), "lock_version": g.lock_version,
                    "grader_version": g.grader_version, "samples_per_task": samples,
                    "seed_material": p.seed, "looks": looks})
    return out


def compare_rows(a_rows: Iterable[Row], b_rows: Iterable[Row], lock: Lock, *,
                 a: dict[str, Any], b: dict[str, Any], valid_tasks: Collection[str] | None,
                 alpha: float = 0.05, n_boot: int = 10_000, decision: Decision = "fixed",
                 looker: Looker | None = None) -> dict[str, Any]:
    """One comparison, a family of one: see `decide`."""
    item = pending(a_rows, b_rows, lock, a=a, b=b, valid_tasks=valid_tasks)
    return decide([item], alpha=alpha, n_boot=n_boot, decision=decision, looker=looker)[0]
