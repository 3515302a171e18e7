"""Holm's step-down procedure: family-wise error control for the comparisons of one report."""

from __future__ import annotations

from collections.abc import Sequence


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order: reject hypothesis j at family-wise level
    alpha iff its adjusted p-value is below alpha. Valid under any dependence between the
    tests (the comparisons of a report share the baseline, so they are correlated)."""
    k = len(p_values)
    order = sorted(range(k), key=lambda j: p_values[j])
    adjusted = [1.0] * k
    running = 0.0
    for rank, j in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p_values[j]))
        adjusted[j] = running
    return adjusted


def holm_levels(p_values: Sequence[float], alpha: float) -> list[float]:
    """The level each hypothesis is tested at in Holm's procedure: alpha / (k - r + 1) for the
    r-th smallest p-value. Tied p-values share the level of the first of them, so the answer
    does not depend on input order; a rejected hypothesis always has p below its level."""
    k = len(p_values)
    return [alpha / (k - sum(q < p for q in p_values)) for p in p_values]
