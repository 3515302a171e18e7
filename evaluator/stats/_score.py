"""Tango's (1998) score interval for the difference of two paired proportions.

With one sample per task each task is a pair of 0/1 outcomes, and the difference of resolve
rates is (b_only - a_only) / n. Tango's interval inverts a score test whose nuisance parameter
(how often the agents disagree) is re-estimated under each tested difference, so, unlike the
bootstrap, it keeps a sensible width when no task is discordant, and it covers close to the
nominal rate at ten tasks (Fagerland, Lydersen and Laake 2014 recommend it). At a difference
of zero its statistic is the asymptotic McNemar statistic (b - a) / sqrt(b + a).
"""

from __future__ import annotations

import math

from scipy import optimize, special

# The score statistic's variance vanishes at a difference of exactly +/-1; the search stops
# this far inside, which no displayed figure can resolve.
_EDGE = 1e-12


def constrained_a_only_rate(b_only: int, a_only: int, n: int, delta0: float) -> float:
    """The maximum-likelihood estimate of P(A alone solves a task) given rate_b - rate_a =
    delta0: the positive root of 2n q^2 + B q + C = 0 (Tango 1998, eq. 3)."""
    quad_b = -(b_only + a_only) + delta0 * (2 * n - b_only + a_only)
    quad_c = -a_only * delta0 * (1 - delta0)
    return (-quad_b + math.sqrt(max(quad_b * quad_b - 8 * n * quad_c, 0.0))) / (4 * n)


def score_statistic(b_only: int, a_only: int, n: int, delta0: float) -> float:
    """Tango's z for H0: rate_b - rate_a = delta0 (decreasing in delta0)."""
    q = constrained_a_only_rate(b_only, a_only, n, delta0)
    var = n * (2 * q + delta0 * (1 - delta0))
    num = b_only - a_only - n * delta0
    if var <= 0.0:
        return 0.0 if num == 0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def score_p_value_at_zero(b_only: int, a_only: int) -> float:
    """Two-sided p-value of the score test of a zero difference (asymptotic McNemar)."""
    m = b_only + a_only
    if m == 0:
        return 1.0
    return float(math.erfc(abs(b_only - a_only) / math.sqrt(2 * m)))


def score_interval(b_only: int, a_only: int, n: int, alpha: float) -> tuple[float, float]:
    """The (1 - alpha) score interval for rate_b - rate_a from `n` pairs."""
    z = float(special.ndtri(1 - alpha / 2))
    estimate = (b_only - a_only) / n

    def gap(delta0: float, target: float) -> float:
        return score_statistic(b_only, a_only, n, delta0) - target

    lo_end, hi_end = -1 + _EDGE, 1 - _EDGE
    lo = -1.0 if estimate <= lo_end or gap(lo_end, z) <= 0 else float(
        optimize.brentq(gap, lo_end, estimate, args=(z,), xtol=1e-12))
    hi = 1.0 if estimate >= hi_end or gap(hi_end, -z) >= 0 else float(
        optimize.brentq(gap, estimate, hi_end, args=(-z,), xtol=1e-12))
    return lo, hi
