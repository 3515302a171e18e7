"""Synthetic agents with known solve rates, for calibration tests.

Tasks have varied difficulty (logits ~ N(0, 1.5), drawn once per set); B's logit on a task is
A's plus a fixed shift, so the true delta is the mean over tasks of p_b(t) - p_a(t). Each
experiment redraws only the outcomes, as rerunning the same agents on the same tasks would.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from evaluator.stats import PairedResult

Runs = dict[str, list[int]]


@dataclass(frozen=True)
class Agents:
    p_a: np.ndarray
    p_b: np.ndarray

    @property
    def true_delta(self) -> float:
        return float(np.mean(self.p_b - self.p_a))


def agents(n_tasks: int, shift: float, seed: int) -> Agents:
    logit = np.random.default_rng(seed).normal(0.0, 1.5, n_tasks)
    return Agents(1 / (1 + np.exp(-logit)), 1 / (1 + np.exp(-(logit + shift))))


def runs(solved: np.ndarray) -> Runs:
    """Tasks x samples booleans as outcome lists by task id."""
    return {f"t{i:03d}": row for i, row in enumerate(solved.astype(int).tolist())}


def experiments(pair: Agents, samples: int, n: int, seed: int,
                candidates: int = 1) -> Iterator[tuple[Runs, list[Runs]]]:
    """`n` draws of A's outcomes and of `candidates` B-like agents' outcomes."""
    rng = np.random.default_rng(seed)
    shape = (pair.p_a.size, samples)
    for _ in range(n):
        a = rng.random(shape) < pair.p_a[:, None]
        yield runs(a), [runs(rng.random(shape) < pair.p_b[:, None]) for _ in range(candidates)]


def disagrees(r: PairedResult) -> bool:
    """Does the verdict contradict its own deciding test or the interval printed with it?"""
    decided = r.verdict != "within noise"
    excludes_zero = r.lo > 0 or r.hi < 0
    side_ok = r.verdict != "better" or r.lo > 0
    side_ok = side_ok and (r.verdict != "worse" or r.hi < 0)
    return decided != (r.p_adjusted < r.alpha) or decided != excludes_zero or not side_ok


def sampling_slack(rate: float, n: int, se: float = 3.0) -> float:
    """`se` standard errors of a rate estimated from `n` independent experiments."""
    return se * math.sqrt(rate * (1 - rate) / n)
