"""A seeded, vectorised bootstrap of a mean over tasks, and the interval read off it."""

from __future__ import annotations

import hashlib
import math

import numpy as np
from numpy.typing import NDArray
from scipy import special

# The index matrix is built in slices of at most this many cells (32 MiB of int64), so 10,000
# resamples of many thousands of tasks never need gigabytes.
_CHUNK_CELLS = 1 << 22

# A multinomial row costs one binomial draw per distinct value, about as much as gathering 16
# indices; below this ratio of tasks to distinct values, gathering is cheaper.
_TASKS_PER_GROUP = 16

INTERVAL_METHOD = "bootstrap_expanded_percentile"


def rng_for(seed_material: str) -> np.random.Generator:
    """A generator fixed by `seed_material`: the same query always draws the same resamples.

    All 256 bits of the digest seed it, so near-identical seed materials share no stream. The
    stream is fixed for a given numpy version; numpy may change its sampling algorithms across
    versions, which the dependency lock pins.
    """
    digest = hashlib.sha256(seed_material.encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest, "big"))


def bootstrap_means(
    values: NDArray[np.float64], n_boot: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Means of `n_boot` resamples, with replacement, of `values` (one per task)."""
    n = values.size
    distinct, counts = np.unique(values, return_counts=True)
    if distinct.size * _TASKS_PER_GROUP <= n:
        # A resample's mean depends only on how many copies of each distinct value it holds,
        # and those counts are multinomial: the same distribution as drawing n indices. Task
        # scores take few values (multiples of 1/samples), so this is the usual path. The
        # multinomial is drawn as a chain of binomials, each over every resample at once (what
        # is left after the earlier values, at the conditional probability), which costs one
        # vectorised call per distinct value instead of one call per resample.
        left = np.full(n_boot, n, dtype=np.int64)
        total = np.zeros(n_boot, dtype=np.float64)
        mass = float(n)
        for value, count in zip(distinct[:-1], counts[:-1], strict=True):
            drawn = rng.binomial(left, min(1.0, count / mass))
            total += value * drawn
            left -= drawn
            mass -= count
        total += distinct[-1] * left
        return total / n
    out = np.empty(n_boot, dtype=np.float64)
    rows = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_boot, rows):
        stop = min(start + rows, n_boot)
        index = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = values[index].mean(axis=1)
    return out


def expanded_tail(n: int, alpha: float) -> float:
    """The tail probability at which Hesterberg's (2015) expanded percentile interval of level
    1 - alpha reads the bootstrap distribution of a mean of `n` values.

    The plain percentile interval is too narrow for small n: it inherits the 1/n plug-in
    variance and normal rather than t tails. Reading the percentiles at
    Phi(-sqrt(n/(n-1)) * t_{n-1, 1-alpha/2}) instead of alpha/2 corrects both, and unlike a
    t interval it keeps the bootstrap's skew near 0% and 100%.
    """
    if n < 2:
        raise ValueError("a bootstrap interval needs at least two tasks")
    t = float(special.stdtrit(n - 1, 1 - alpha / 2))
    return float(special.ndtr(-math.sqrt(n / (n - 1)) * t))


def expanded_alpha(n: int, tail: float) -> float:
    """The inverse of `expanded_tail`: the alpha whose interval reads the bootstrap at `tail`."""
    if tail <= 0.0:
        return 0.0
    if tail >= 0.5:
        return 1.0
    t = -float(special.ndtri(tail)) / math.sqrt(n / (n - 1))
    return min(1.0, 2.0 * float(special.stdtr(n - 1, -t)))


def tail_rank(n_boot: int, n: int, alpha: float) -> int:
    """How many of `n_boot` sorted resamples lie at or beyond each end of the interval."""
    return min(n_boot, max(1, math.ceil(expanded_tail(n, alpha) * n_boot)))


def expanded_percentile_interval(
    boot: NDArray[np.float64], n: int, alpha: float
) -> tuple[float, float]:
    """The expanded percentile interval of level 1 - alpha from bootstrap means of `n` values.

    The ends are order statistics (the inverse of the empirical distribution, no interpolation),
    so whether the interval excludes zero is a count of resamples, exactly what
    `bootstrap_p_value` inverts.
    """
    ordered = np.sort(boot)
    k = tail_rank(ordered.size, n, alpha)
    return float(ordered[k - 1]), float(ordered[ordered.size - k])


def bootstrap_p_value(boot: NDArray[np.float64], n: int, estimate: float) -> float:
    """The smallest alpha at which the expanded percentile interval excludes zero on the side
    of `estimate` (1.0 for a zero estimate): the test the interval itself makes.

    At level alpha the lower end is the k-th smallest resample, k = ceil(tail(alpha) * B); it is
    above zero iff fewer than k resamples are at or below zero, i.e. iff tail(alpha) exceeds the
    share c / B of such resamples. So p = tail^-1(c / B), and p < alpha iff the interval at
    alpha excludes zero.
    """
    if estimate == 0.0:
        return 1.0
    beyond = np.count_nonzero(boot <= 0.0) if estimate > 0 else np.count_nonzero(boot >= 0.0)
    return expanded_alpha(n, int(beyond) / boot.size)
