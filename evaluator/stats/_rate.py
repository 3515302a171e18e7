"""A resolve rate over tasks with its confidence interval.

The task is the unit: each task contributes its score (the mean over its samples), so the
standard error is the clustered one of Miller (2024), "Adding Error Bars to Evals", and extra
samples per task narrow the interval only as far as they reduce per-task noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from evaluator.stats._checks import check_alpha
from evaluator.stats._jsonable import to_dict


@dataclass(frozen=True)
class RateEstimate:
    """Mean task score and its two-sided interval, clipped to [0, 1]."""

    mean: float
    lo: float
    hi: float
    n_tasks: int

    def to_dict(self) -> dict[str, Any]:
        return to_dict(self)


def resolve_rate(per_task_scores: ArrayLike, *, alpha: float = 0.05) -> RateEstimate:
    """Mean of per-task scores in [0, 1] with a (1 - alpha) interval.

    - Every score 0 or 1 (one sample per task, or samples that always agree): Wilson score
      interval. It matches the CLT interval for large n yet stays inside [0, 1] and keeps a
      non-zero width at 0% or 100%, where the CLT interval collapses to a point.
    - Otherwise: mean +/- t_{n-1} * sd / sqrt(n) on the task scores (the clustered CLT standard
      error); Student's t rather than the normal so that a handful of tasks is not overconfident.
    - A single non-binary task carries no spread information, so its interval is all of [0, 1].
    """
    scores = np.asarray(per_task_scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"per_task_scores must be one-dimensional, got shape {scores.shape}")
    n = int(scores.size)
    if n == 0:
        raise ValueError("resolve_rate needs at least one task score")
    if not np.all(np.isfinite(scores)) or np.any((scores < 0) | (scores > 1)):
        raise ValueError("task scores must be finite and lie in [0, 1]")
    check_alpha(alpha)
    mean = float(scores.mean())
    if np.all((scores == 0) | (scores == 1)):
        lo, hi = _wilson(mean, n, alpha)
    elif n == 1:
        lo, hi = 0.0, 1.0
    else:
        t = float(special.stdtrit(n - 1, 1 - alpha / 2))
        half = t * float(scores.std(ddof=1)) / math.sqrt(n)
        lo, hi = mean - half, mean + half
    return RateEstimate(mean=mean, lo=_clip(lo), hi=_clip(hi), n_tasks=n)


def _wilson(p: float, n: int, alpha: float) -> tuple[float, float]:
    z = float(special.ndtri(1 - alpha / 2))
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0% or 100% one bound is exactly 0 or 1 in theory; say so rather than 1 - 1e-16.
    lo = 0.0 if p == 0.0 else centre - half
    hi = 1.0 if p == 1.0 else centre + half
    return lo, hi


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))
