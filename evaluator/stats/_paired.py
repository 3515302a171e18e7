"""Paired comparison of two agents on the same tasks, the task being the unit of resampling."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from evaluator.stats._bootstrap import (
    INTERVAL_METHOD,
    bootstrap_means,
    expanded_percentile_interval,
    rng_for,
)
from evaluator.stats._checks import check_alpha
from evaluator.stats._jsonable import to_dict
from evaluator.stats._power import tasks_needed
from evaluator.stats._significance import mcnemar_exact, paired_t_pvalue

Verdict = Literal["better", "worse", "within noise"]

# Task means are multiples of 1/samples, so a zero delta can come out as 1e-17; below this it is
# zero, lest a tie get a "tasks needed" figure in the quintillions.
_ZERO = 1e-12

# Error messages list at most this many task ids; the count says how many more there are.
_MAX_IDS_SHOWN = 20


@dataclass(frozen=True)
class PairedResult:
    """B compared with A on `n_tasks` shared tasks; `delta` = mean_b - mean_a over task means.

    `lo`/`hi` bound delta at level 1 - alpha; `verdict` says whether that interval lies wholly
    above 0 ("better": B beats A), wholly below ("worse") or straddles it. `b_only`/`a_only`
    count tasks where B's (A's) task score is the higher: with one sample each, the tasks only
    that agent resolved. `tasks_needed` is how many paired tasks an effect of this size would
    need for 80% power at `alpha`, or None for a zero delta or fewer than two tasks.
    """

    n_tasks: int
    mean_a: float
    mean_b: float
    delta: float
    lo: float
    hi: float
    verdict: Verdict
    p_value: float
    test: str
    b_only: int
    a_only: int
    tasks_needed: int | None
    alpha: float
    n_boot: int
    interval_method: str

    def to_dict(self) -> dict[str, Any]:
        return to_dict(self)


def paired_comparison(
    a: Mapping[str, Sequence[int]],
    b: Mapping[str, Sequence[int]],
    *,
    seed_material: str,
    n_boot: int = 10_000,
    alpha: float = 0.05,
) -> PairedResult:
    """Compare agent B with agent A on the tasks both attempted.

    `a` and `b` map task ids to 0/1 outcomes, one per sample; both must hold the same task ids.
    Each task scores the mean of its samples and the task is the unit (Miller 2024), so the
    interval is a bootstrap over tasks of the paired difference, drawn from a generator seeded
    by `seed_material` (same inputs and seed material, same interval). The p-value is an exact
    McNemar test when every task has one sample on each side, else a paired t-test on task
    scores.
    """
    check_alpha(alpha)
    n_boot = _positive_int("n_boot", n_boot)
    ids = _shared_ids(a, b)
    mean_a, single_a = _task_means(a, ids, "a")
    mean_b, single_b = _task_means(b, ids, "b")
    diffs = mean_b - mean_a
    n = len(ids)
    delta = float(diffs.mean())
    if abs(delta) < _ZERO:
        delta = 0.0
    b_only = int(np.count_nonzero(diffs > 0))
    a_only = int(np.count_nonzero(diffs < 0))

    if n >= 2:
        boot = bootstrap_means(diffs, n_boot, rng_for(seed_material))
        lo, hi = expanded_percentile_interval(boot, n, alpha)
        # A percentile interval can, under extreme skew or float rounding, stop just short of
        # the estimate; the verdict must never contradict the side delta itself lies on.
        lo, hi = min(lo, delta), max(hi, delta)
        needed = tasks_needed(delta, float(diffs.std(ddof=1)), alpha=alpha)
    else:
        # One task says nothing about task-to-task spread: every difference stays possible.
        lo, hi, needed = -1.0, 1.0, None

    if single_a and single_b:
        test, p_value = "mcnemar_exact", mcnemar_exact(a_only, b_only)
    else:
        test, p_value = "paired_t", paired_t_pvalue(diffs)

    return PairedResult(
        n_tasks=n,
        mean_a=float(mean_a.mean()),
        mean_b=float(mean_b.mean()),
        delta=delta,
        lo=lo,
        hi=hi,
        verdict=_verdict(lo, hi),
        p_value=p_value,
        test=test,
        b_only=b_only,
        a_only=a_only,
        tasks_needed=needed,
        alpha=float(alpha),
        n_boot=n_boot,
        interval_method=INTERVAL_METHOD,
    )


def _verdict(lo: float, hi: float) -> Verdict:
    if lo > 0:
        return "better"
    if hi < 0:
        return "worse"
    return "within noise"


def _shared_ids(a: Mapping[str, Sequence[int]], b: Mapping[str, Sequence[int]]) -> list[str]:
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    if only_a or only_b:
        raise ValueError(
            "a and b must cover the same tasks; "
            f"only in a: {_show(only_a)}; only in b: {_show(only_b)}"
        )
    if not a:
        raise ValueError("paired_comparison needs at least one task")
    # Sorted so that the resampled values, hence the interval, do not depend on dict order.
    return sorted(a, key=str)


def _task_means(
    outcomes: Mapping[str, Sequence[int]], ids: list[str], side: str
) -> tuple[NDArray[np.float64], bool]:
    rows = [outcomes[task] for task in ids]
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    if not lengths.all():
        raise ValueError(f"{side}[{ids[int(np.argmin(lengths))]!r}] has no samples; drop the task")
    # One flat array rather than a Python loop per task: thousands of tasks stay sub-millisecond.
    flat = np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=int(lengths.sum()))
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    bad = (flat != 0) & (flat != 1)
    if bad.any():
        task = ids[int(np.searchsorted(offsets, np.argmax(bad), side="right")) - 1]
        raise ValueError(f"{side}[{task!r}] holds outcomes other than 0 and 1: {outcomes[task]!r}")
    means = np.add.reduceat(flat, offsets) / lengths
    return means, bool(np.all(lengths == 1))


def _show(ids: set[str]) -> str:
    if not ids:
        return "none"
    shown = sorted(ids, key=str)[:_MAX_IDS_SHOWN]
    more = len(ids) - len(shown)
    return ", ".join(map(repr, shown)) + (f" and {more} more" if more else "")


def _positive_int(name: str, value: int) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a positive integer, got {value!r}") from None
    if isinstance(value, bool) or number < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return number
