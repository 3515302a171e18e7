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
        # and those counts are multinomial: the same distribution as drawing n indices, for a
        # few binomial draws per resample. Task scores take few values (multiples of 1/samples),
        # so this is the usual path.
        draws = rng.multinomial(n, counts / n, size=n_boot)
        return np.asarray(draws @ distinct / n, dtype=np.float64)
    out = np.empty(n_boot, dtype=np.float64)
    rows = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_boot, rows):
        stop = min(start + rows, n_boot)
        index = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = values[index].mean(axis=1)
    return out


def expanded_percentile_interval(
    boot: NDArray[np.float64], n: int, alpha: float
) -> tuple[float, float]:
    """Hesterberg's (2015) expanded percentile interval from bootstrap means of `n` values.

    The plain percentile interval is too narrow for small n: it inherits the 1/n plug-in
    variance and normal rather than t tails. Reading the percentiles at
    Phi(-sqrt(n/(n-1)) * t_{n-1, 1-alpha/2}) instead of alpha/2 corrects both, and unlike a
    t interval it keeps the bootstrap's skew near 0% and 100%.
    """
    if n < 2:
        raise ValueError("a bootstrap interval needs at least two tasks")
    t = float(special.stdtrit(n - 1, 1 - alpha / 2))
    tail = float(special.ndtr(-math.sqrt(n / (n - 1)) * t))
    lo, hi = np.quantile(boot, [tail, 1 - tail])
    return float(lo), float(hi)
