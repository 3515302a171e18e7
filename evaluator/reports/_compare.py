"""A paired comparison of two agents, behind the comparability guard."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from evaluator.hashing import canonical_json
from evaluator.lock import Lock
from evaluator.reports._guard import Row, comparability


def side(agent: str, identity: str | None, simulated: bool, source: str) -> dict[str, Any]:
    """How a comparison names one of its agents."""
    return {"agent": agent, "identity": identity, "simulated": simulated, "source": source}


def seed_material(identity_a: str | None, identity_b: str | None, lock_version: str,
                  tasks: Iterable[str]) -> str:
    """The bootstrap's seed: the same two agent versions on the same tasks of the same lock
    always draw the same resamples, so the same query gives the same interval."""
    return canonical_json({"a": identity_a, "b": identity_b, "lock_version": lock_version,
                           "tasks": sorted(tasks)}).decode()


def compare_rows(a_rows: Iterable[Row], b_rows: Iterable[Row], lock: Lock, *,
                 a: dict[str, Any], b: dict[str, Any], valid_tasks: Collection[str] | None,
                 alpha: float = 0.05, n_boot: int = 10_000) -> dict[str, Any]:
    """B against A (`delta` = B - A) as a JSON-able dict, or a refusal with every reason.

    A refusal carries no number at all: a figure next to "refused" gets quoted without it.
    """
    from evaluator.stats import paired_comparison  # scipy: kept off the `doit` load path

    guard = comparability(a_rows, b_rows, lock, valid_tasks=valid_tasks,
                          names=(a["agent"], b["agent"]))
    out: dict[str, Any] = {"a": a, "b": b, "left_out": guard.left_out}
    if not guard.comparable:
        return {**out, "refused": True, "reasons": list(guard.reasons)}
    seed = seed_material(a["identity"], b["identity"], lock.version, guard.tasks)
    result = paired_comparison(guard.a, guard.b, seed_material=seed, alpha=alpha, n_boot=n_boot)
    samples = sorted({len(v) for v in (*guard.a.values(), *guard.b.values())})
    return {**out, "refused": False, "reasons": [], **result.to_dict(),
            "tasks": list(guard.tasks), "lock_version": guard.lock_version,
            "grader_version": guard.grader_version, "samples_per_task": samples,
            "seed_material": seed, "caution": _caution(result.verdict, result.p_value,
                                                       result.test, alpha)}


def _caution(verdict: str, p_value: float, test: str, alpha: float) -> str | None:
    """Say so when the interval (which decides the verdict) and the test disagree.

    With few discordant tasks the bootstrap interval can clear zero while the exact test does
    not (4 of 8 tasks flipped: interval below zero, McNemar p = 0.125); the verdict stands, but
    a reader should know it is borderline.
    """
    if (verdict != "within noise") == (p_value < alpha):
        return None
    side = "excludes" if verdict != "within noise" else "includes"
    return (f"borderline: the interval {side} zero but {test} gives p={p_value:.4g} "
            f"({'not ' if p_value >= alpha else ''}below {alpha:g}); more tasks would settle it")
