"""How many paired tasks an effect needs before the test that decides can resolve it.

The figure is computed for the deciding test itself, not for a normal approximation of some
other test: both deciding tests are exact and discrete, so at few tasks they cannot reject at
all (every task going one way gives p = 2 / 2^n, which is 0.0625 at 5 tasks), and an
approximation that says "2 tasks" beside a verdict at p = 0.0625 contradicts it.

- The exact McNemar test (one sample per task): each task is, independently, solved by B alone
  with the observed share of such tasks, by A alone likewise, else concordant. Its power at n
  tasks is summed exactly over the number of discordant tasks; the figure is the smallest n
  whose power reaches the target.
- The sign-flip test (several samples): n tasks are drawn with replacement from the observed
  per-task differences (the task-clustered model the interval uses too), each draw is tested
  with the exact sign-flip p-value, and the figure is the smallest n at which the share of
  draws that reject reaches the target; seeded, so a report re-renders identically. Past
  `_SIMULATED_UP_TO` tasks the normal approximation of the same test takes over (the discrete
  test is close to it there).

Neither figure is ever below `min_tasks`, where the smallest p-value either test can give
drops under alpha.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray
from scipy import special

from evaluator.stats._checks import check_alpha

# A zero-variance difference would need "zero" tasks by the formula; two is the fewest that
# give any estimate of the spread at all.
_MIN_TASKS = 2

# Float error can push an exact integer such as 16 to 16.000000000001; ceil must not add a task.
_CEIL_SLACK = 1e-9

# The sign-flip figure is simulated up to this many tasks, from this many draws of the tasks.
_SIMULATED_UP_TO = 40
_DRAWS = 400
# Task differences are multiples of 1/lcm(sample counts); past this denominator (ragged sample
# counts) the exact null distribution is not tabulated and the approximation answers.
_MAX_DENOMINATOR = 60

# The exact McNemar power is scanned n by n up to here, then bisected (it only grows, up to
# the discreteness of the test, which no longer matters there).
_SCANNED_UP_TO = 400
_MAX_TASKS = 10**7


def tasks_needed(delta: float, sd: float, *, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Paired tasks needed to detect a true mean difference `delta` with a two-sided z-test at
    `alpha` and the given power, when per-task differences have standard deviation `sd`:
    n = ceil(((z_{1-alpha/2} + z_{power}) * sd / |delta|)^2), at least 2. An approximation:
    the report gives `mcnemar_tasks_needed` or `sign_flip_tasks_needed`, the deciding test's.

    None when `delta` is zero: there is no effect to detect, at any number of tasks.
    """
    _check(alpha, power)
    if not (math.isfinite(delta) and math.isfinite(sd)) or sd < 0:
        raise ValueError(f"need a finite delta and a finite sd >= 0, got {delta=}, {sd=}")
    if delta == 0.0:
        return None
    z = float(special.ndtri(1 - alpha / 2)) + float(special.ndtri(power))
    n = (z * sd / abs(delta)) ** 2
    return max(_MIN_TASKS, math.ceil(n - _CEIL_SLACK))


def min_tasks(alpha: float = 0.05) -> int:
    """The fewest tasks at which the exact McNemar or sign-flip test can reject at `alpha`: its
    smallest p-value, every task going one way, is 2 / 2^n."""
    check_alpha(alpha)
    n = 1
    while 2.0 / 2**n >= alpha:
        n += 1
    return n


def mcnemar_tasks_needed(b_only: int, a_only: int, n: int, *, alpha: float = 0.05,
                         power: float = 0.8) -> int | None:
    """The smallest number of tasks at which the exact McNemar test at `alpha` reaches `power`,
    when a task is B's alone with probability b_only / n and A's alone with a_only / n."""
    _check(alpha, power)
    if b_only == a_only or n < 1:
        return None
    discordant, b_share = (a_only + b_only) / n, b_only / (a_only + b_only)

    def enough(tasks: int) -> bool:
        return _mcnemar_power(tasks, discordant, b_share, alpha) >= power

    lo = min_tasks(alpha)
    for tasks in range(lo, _SCANNED_UP_TO + 1):
        if enough(tasks):
            return tasks
    lo, hi = _SCANNED_UP_TO, 2 * _SCANNED_UP_TO
    while not enough(hi):
        if hi >= _MAX_TASKS:
            return hi
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def _mcnemar_power(n: int, discordant: float, b_share: float, alpha: float) -> float:
    # scipy.special, not scipy.stats: importing the latter costs seconds in every process.
    d = np.arange(n + 1)
    # The largest count k of the rarer side at which 2 * P(X <= k) < alpha, X ~ Bin(d, 1/2);
    # bdtrik inverts the cdf continuously, the two checks settle the integer either way.
    with np.errstate(invalid="ignore"):
        guess = special.bdtrik(alpha / 2, d.astype(np.float64), 0.5)
    k = np.floor(np.nan_to_num(guess, nan=-1.0)).astype(np.int64)
    k = np.where(_fair_cdf(k + 1, d) * 2 < alpha, k + 1, k)
    k = np.where(_fair_cdf(k, d) * 2 >= alpha, k - 1, k)
    safe = np.maximum(k, 0)  # k >= 0 means k < d / 2, so d - k - 1 >= 0 too
    reject = np.where(k >= 0, special.bdtr(safe, d, b_share)
                      + special.bdtrc(np.maximum(d - safe - 1, 0), d, b_share), 0.0)
    log_pmf = (special.gammaln(n + 1) - special.gammaln(d + 1) - special.gammaln(n - d + 1)
               + special.xlogy(d, discordant) + special.xlog1py(n - d, -discordant))
    return float(np.sum(np.exp(log_pmf) * reject))


def _fair_cdf(k: NDArray[np.int64], d: NDArray[np.int64]) -> NDArray[np.float64]:
    return np.where(k < 0, 0.0, special.bdtr(np.maximum(k, 0), d, 0.5))


def sign_flip_tasks_needed(diffs: NDArray[np.float64], rng: np.random.Generator, *,
                           alpha: float = 0.05, power: float = 0.8) -> int | None:
    """The smallest number of tasks at which the exact sign-flip test at `alpha` rejects in a
    `power` share of draws of that many tasks from the observed per-task `diffs`."""
    _check(alpha, power)
    delta = float(np.mean(diffs)) if diffs.size else 0.0
    if diffs.size < 2 or abs(delta) < 1e-12:
        return None
    floor = min_tasks(alpha)
    approx = max(floor, _sign_flip_approx(diffs, alpha, power))
    scale = _denominator(diffs)
    if approx > _SIMULATED_UP_TO or scale is None:
        return approx
    values = np.rint(diffs * scale).astype(np.int64)
    drawn = rng.choice(values, size=(_DRAWS, _SIMULATED_UP_TO))
    rejects = _exact_rejections(drawn, alpha)
    for tasks in range(floor, _SIMULATED_UP_TO + 1):
        if rejects[tasks - 1] >= power:
            return tasks
    return _SIMULATED_UP_TO + 1


def _sign_flip_approx(diffs: NDArray[np.float64], alpha: float, power: float) -> int:
    # Under sign flips the sum of the differences has variance sum(d^2), not n * sd^2: the
    # test rejects when |mean| >= z * rms / sqrt(n), whose power at the true delta gives n.
    delta, sd = abs(float(np.mean(diffs))), float(np.std(diffs, ddof=1))
    rms = math.sqrt(float(np.mean(diffs**2)))
    root = (float(special.ndtri(1 - alpha / 2)) * rms + float(special.ndtri(power)) * sd) / delta
    return max(_MIN_TASKS, math.ceil(root**2 - _CEIL_SLACK))


def _denominator(diffs: NDArray[np.float64]) -> int | None:
    scale = 1
    for value in np.unique(np.abs(diffs)):
        frac = Fraction(float(value)).limit_denominator(_MAX_DENOMINATOR)
        if abs(float(frac) - float(value)) > 1e-9:
            return None
        scale = math.lcm(scale, frac.denominator)
    return scale if scale <= _MAX_DENOMINATOR else None


def _exact_rejections(drawn: NDArray[np.int64], alpha: float) -> NDArray[np.float64]:
    """For each n, the share of rows whose first n values the exact sign-flip test rejects.

    The null distribution of |sum| of the first n values under random signs is built one task
    at a time, so every n comes out of one pass: a sum of size s is +s or -s alike (the signs
    are symmetric), so a next value u moves it to s + u or |s - u|, half the mass each."""
    rows, cols = drawn.shape
    steps = np.abs(drawn)
    reach = np.cumsum(steps, axis=1).max(axis=0)
    dist = np.zeros((rows, int(reach[-1]) + 1))
    dist[:, 0] = 1.0
    observed = np.abs(np.cumsum(drawn, axis=1))
    out = np.empty(cols)
    for i in range(cols):
        top = int(reach[i]) + 1
        step = steps[:, i]
        for u in np.unique(step):
            if u == 0:
                continue
            sel = np.flatnonzero(step == u)
            part = dist[sel, :top]
            moved = np.zeros_like(part)
            moved[:, u:] += part[:, : top - u]
            moved[:, : top - u] += part[:, u:]
            moved[:, u - np.arange(u)] += part[:, :u]
            dist[sel, :top] = moved / 2
        tail = np.cumsum(dist[:, :top][:, ::-1], axis=1)[:, ::-1]  # P(|S| >= s)
        p = np.where(observed[:, i] == 0, 1.0, tail[np.arange(rows), observed[:, i]])
        out[i] = float(np.mean(p < alpha))
    return out


def _check(alpha: float, power: float) -> None:
    check_alpha(alpha)
    if not 0 < power < 1:
        raise ValueError(f"power={power} must lie strictly between 0 and 1")
