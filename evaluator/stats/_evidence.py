"""What one paired comparison's data say, before a decision rule reads them: the estimate, the
deciding fixed-sample test and its interval at any level, and the sequential e-value.

Kept apart from the decision so that Holm's procedure can first collect every comparison's
p-value and then read each interval at the level its step tests it at, without drawing the
bootstrap twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
from numpy.typing import NDArray

from evaluator.stats._bootstrap import INTERVAL_METHOD, bootstrap_means, rng_for, tail_rank
from evaluator.stats._power import mcnemar_tasks_needed, sign_flip_tasks_needed
from evaluator.stats._score import score_interval
from evaluator.stats._sequential import mixture_e_value
from evaluator.stats._signflip import sign_flip_p
from evaluator.stats._significance import mcnemar_exact

MCNEMAR, SIGN_FLIP = "mcnemar_exact", "sign_flip_permutation"
SCORE_METHOD = "tango_score"

# Task means are multiples of 1/samples, so a zero delta can come out as 1e-17; below this it is
# zero, lest a tie get a "tasks needed" figure in the quintillions or a direction.
_ZERO = 1e-12

# The smallest bound that still reads as non-zero once results are rounded to six decimals.
_TINY = 1e-6


@dataclass(frozen=True)
class Evidence:
    n: int
    mean_a: float
    mean_b: float
    delta: float
    a_only: int  # tasks where A's score is the higher
    b_only: int
    single: bool  # one sample per task on both sides: the exact McNemar test decides
    sd: float | None  # of the per-task differences; None below two tasks
    boot: NDArray[np.float64] | None  # sorted resampled deltas (several samples, >= 2 tasks)
    p_fixed: float
    pair_a_wins: int  # sample pairs (i-th of A with i-th of B) that only A solved
    pair_b_wins: int
    e_value: float
    diffs: NDArray[np.float64]  # per-task differences of the task scores, B - A
    seed_material: str

    @property
    def fixed_test(self) -> str:
        return MCNEMAR if self.single else SIGN_FLIP

    def tasks_needed(self, alpha: float, power: float = 0.8) -> int | None:
        """Tasks an effect of this size needs for `power` with the fixed test that decides."""
        if self.n < 2:
            return None
        if self.single:
            return mcnemar_tasks_needed(self.b_only, self.a_only, self.n, alpha=alpha,
                                        power=power)
        return sign_flip_tasks_needed(self.diffs, rng_for(self.seed_material + "/power"),
                                      alpha=alpha, power=power)

    @property
    def interval_method(self) -> str:
        if self.single:
            return SCORE_METHOD
        return INTERVAL_METHOD if self.boot is not None else "none (one task)"

    def interval(self, level: float, reject: bool) -> tuple[float, float, bool]:
        """(lo, hi, widened): the interval of level 1 - `level`, made to agree with the decision.

        The bootstrap interval is read with the decision of the sign-flip test: when it rejects,
        the end on zero's side moves to the first resample past zero (so the set still holds the
        estimate and excludes zero); when it does not, the interval is joined with zero (`widened` says
        whether that moved it): still a confidence set, since it only grew. When it rejects the
        interval already excludes zero, by construction for the bootstrap, and for the score
        interval because at zero it is the asymptotic McNemar test, which rejects whenever the
        exact one does (checked for every split of up to 3,000 discordant tasks at levels
        0.05/k, k <= 10). Should a level ever break that, the far end stops just short of zero.
        """
        if self.single:
            lo, hi = score_interval(self.b_only, self.a_only, self.n, level)
        elif self.boot is None:
            lo, hi = -1.0, 1.0  # one task says nothing about task-to-task spread
        else:
            k = tail_rank(self.boot.size, self.n, level)
            if reject:
                # Equal to k but for float rounding at the boundary: the end must be a resample
                # past zero, as the p-value says.
                beyond = np.count_nonzero(self.boot <= 0.0 if self.delta > 0 else self.boot >= 0.0)
                k = max(k, int(beyond) + 1)
            lo, hi = float(self.boot[k - 1]), float(self.boot[self.boot.size - k])
            # Under extreme skew an end can stop just short of the estimate.
            lo, hi = min(lo, self.delta), max(hi, self.delta)
        if reject:
            if self.delta > 0:
                lo = max(lo, _TINY)
            else:
                hi = min(hi, -_TINY)
            return lo, hi, False
        widened = lo > 0 or hi < 0
        return min(lo, 0.0), max(hi, 0.0), widened


def gather(a: Mapping[str, Sequence[int]], b: Mapping[str, Sequence[int]], *, ids: list[str],
           seed_material: str, n_boot: int) -> Evidence:
    """The evidence of B against A on `ids` (validated, sorted task ids)."""
    rows_a, rows_b = [a[t] for t in ids], [b[t] for t in ids]
    flat_a, len_a = _flatten(rows_a, ids, "a")
    flat_b, len_b = _flatten(rows_b, ids, "b")
    mean_a, mean_b = _means(flat_a, len_a), _means(flat_b, len_b)
    diffs = mean_b - mean_a
    n = len(ids)
    delta = float(diffs.mean())
    if abs(delta) < _ZERO:
        delta = 0.0
    a_only, b_only = int(np.count_nonzero(diffs < 0)), int(np.count_nonzero(diffs > 0))
    single = bool(np.all(len_a == 1) and np.all(len_b == 1))
    boot = None
    if single:
        p_fixed = mcnemar_exact(a_only, b_only)
    elif n >= 2:
        boot = np.sort(bootstrap_means(diffs, n_boot, rng_for(seed_material)))
        p_fixed = sign_flip_p(diffs, n_boot, rng_for(seed_material + "/sign-flip"))
    else:
        p_fixed = 1.0
    pair_a, pair_b = _pair_wins(flat_a, len_a, flat_b, len_b)
    return Evidence(
        n=n, mean_a=float(mean_a.mean()), mean_b=float(mean_b.mean()), delta=delta,
        a_only=a_only, b_only=b_only, single=single,
        sd=float(diffs.std(ddof=1)) if n >= 2 else None, boot=boot, p_fixed=p_fixed,
        pair_a_wins=pair_a, pair_b_wins=pair_b, e_value=mixture_e_value(pair_a, pair_b),
        diffs=diffs, seed_material=seed_material)


def _flatten(rows: list[Sequence[int]], ids: list[str],
             side: str) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    if not lengths.all():
        raise ValueError(f"{side}[{ids[int(np.argmin(lengths))]!r}] has no samples; drop the task")
    # One flat array rather than a Python loop per task: thousands of tasks stay sub-millisecond.
    flat = np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=int(lengths.sum()))
    bad = (flat != 0) & (flat != 1)
    if bad.any():
        offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        task = int(np.searchsorted(offsets, np.argmax(bad), side="right")) - 1
        raise ValueError(f"{side}[{ids[task]!r}] holds outcomes other than 0 and 1: "
                         f"{list(rows[task])!r}")
    return flat, lengths


def _means(flat: NDArray[np.float64], lengths: NDArray[np.int64]) -> NDArray[np.float64]:
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.asarray(np.add.reduceat(flat, offsets) / lengths, dtype=np.float64)


def _pair_wins(flat_a: NDArray[np.float64], len_a: NDArray[np.int64],
               flat_b: NDArray[np.float64], len_b: NDArray[np.int64]) -> tuple[int, int]:
    """Disagreeing pairs of the i-th sample of A with the i-th of B, per task; a side's samples
    beyond the other's count have no partner and are left out."""
    paired = np.minimum(len_a, len_b)
    starts = np.repeat(np.cumsum(paired) - paired, paired)
    within = np.arange(int(paired.sum())) - starts
    start_a = np.repeat(np.cumsum(len_a) - len_a, paired)
    start_b = np.repeat(np.cumsum(len_b) - len_b, paired)
    xa, xb = flat_a[start_a + within], flat_b[start_b + within]
    return int(np.count_nonzero(xa > xb)), int(np.count_nonzero(xb > xa))
