import itertools
import math

import pytest
from scipy import optimize, special

from evaluator.stats import mcnemar_exact, score_interval
from evaluator.stats._score import (
    constrained_a_only_rate,
    score_p_value_at_zero,
    score_statistic,
)


def test_no_discordant_task_still_gives_a_width() -> None:
    # With b = a = 0, |z(d)| = sqrt(n d / (1 - d)), so the ends are +/- z^2 / (n + z^2).
    z2 = special.ndtri(0.975) ** 2
    assert score_interval(0, 0, 10, 0.05) == pytest.approx((-z2 / (10 + z2), z2 / (10 + z2)))


@pytest.mark.parametrize(("b", "a", "n", "d0"), [(7, 2, 30, 0.1), (1, 6, 12, -0.2), (4, 0, 12, 0.5)])
def test_nuisance_estimate_maximises_the_constrained_likelihood(b: int, a: int, n: int,
                                                                d0: float) -> None:
    def minus_loglik(q: float) -> float:  # cells: B alone q + d0, A alone q, concordant rest
        return -(b * math.log(q + d0) + a * math.log(q) + (n - a - b) * math.log(1 - 2 * q - d0))

    found = optimize.minimize_scalar(minus_loglik, bounds=(max(0, -d0) + 1e-9, (1 - d0) / 2 - 1e-9),
                                     method="bounded", options={"xatol": 1e-10})
    assert constrained_a_only_rate(b, a, n, d0) == pytest.approx(found.x, abs=1e-6)


def test_at_zero_the_score_test_is_the_asymptotic_mcnemar_test() -> None:
    for b, a in [(5, 1), (0, 4), (9, 9)]:
        assert score_statistic(b, a, 40, 0.0) == pytest.approx((b - a) / math.sqrt(b + a))
        lo, hi = score_interval(b, a, 40, 0.05)
        assert (lo > 0 or hi < 0) == (score_p_value_at_zero(b, a) < 0.05)


def test_ends_are_where_the_statistic_meets_the_critical_value() -> None:
    lo, hi = score_interval(11, 3, 50, 0.05)
    z = special.ndtri(0.975)
    assert score_statistic(11, 3, 50, lo) == pytest.approx(z, abs=1e-6)
    assert score_statistic(11, 3, 50, hi) == pytest.approx(-z, abs=1e-6)
    assert lo < 8 / 50 < hi


def test_exact_mcnemar_never_rejects_where_the_score_interval_reaches_zero() -> None:
    # What lets the score interval stand beside the exact test: the exact test is the more
    # conservative, so whenever it rejects the interval already excludes zero.
    for m, level in itertools.product(range(1, 121), [0.05, 0.025, 0.0125]):
        for b in range(m + 1):
            if mcnemar_exact(m - b, b) < level:
                assert score_p_value_at_zero(b, m - b) < level, (m - b, b, level)
