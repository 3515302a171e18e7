"""The tasks-needed figure is the deciding exact test's own: never fewer tasks than that test can
reject at, and the smallest number at which its power (checked independently) reaches 80%."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from evaluator.stats import mcnemar_exact, paired_comparison
from evaluator.stats._bootstrap import rng_for
from evaluator.stats._power import mcnemar_tasks_needed, min_tasks, sign_flip_tasks_needed
from evaluator.stats._signflip import sign_flip_p


def test_the_fewest_tasks_an_exact_test_can_reject_at() -> None:
    assert (min_tasks(0.05), min_tasks(0.01)) == (6, 8)  # 2/2^6 = 0.031 < 0.05 <= 2/2^5


@pytest.mark.parametrize("samples", [1, 2])
def test_five_tasks_one_way_are_within_noise_and_need_six(samples: int) -> None:
    # The case: exact p = 0.0625 beside "needs about 2 tasks" (the z formula's figure).
    r = paired_comparison({f"t{i}": [0] * samples for i in range(5)},
                          {f"t{i}": [1] * samples for i in range(5)}, seed_material="p")
    assert (r.verdict, r.p_value, r.tasks_needed) == ("within noise", 0.0625, 6)


def _mcnemar_power(n: int, b: float, a: float, alpha: float = 0.05) -> float:
    """By enumeration of every (B-only, A-only) count: independent of the module's sums."""
    total = 0.0
    for nb, na in itertools.product(range(n + 1), repeat=2):
        if nb + na <= n and mcnemar_exact(na, nb) < alpha:
            total += (math.factorial(n) / (math.factorial(nb) * math.factorial(na)
                      * math.factorial(n - nb - na)) * b**nb * a**na * (1 - a - b)**(n - nb - na))
    return total


@pytest.mark.parametrize(("b_only", "a_only", "n"), [(4, 0, 12), (8, 2, 20), (6, 1, 10)])
def test_mcnemar_figure_is_the_first_n_with_enough_power(b_only: int, a_only: int, n: int) -> None:
    needed = mcnemar_tasks_needed(b_only, a_only, n)
    assert needed is not None and needed >= min_tasks()
    assert _mcnemar_power(needed, b_only / n, a_only / n) >= 0.8
    assert all(_mcnemar_power(m, b_only / n, a_only / n) < 0.8 for m in range(needed))


def _sign_flip_power(diffs: np.ndarray, n: int, draws: int = 1500) -> float:
    rng = np.random.default_rng(7)
    rows = rng.choice(diffs, size=(draws, n))
    return float(np.mean([sign_flip_p(row, 1, rng) < 0.05 for row in rows]))  # exact: n <= 16


def test_sign_flip_figure_matches_an_independent_simulation() -> None:
    diffs = np.array([1.0, 1.0, 0.5, 1.0, 0.5, 0.0, 1.0, 1.0])  # needs 8: cheap to enumerate
    needed = sign_flip_tasks_needed(diffs, rng_for("t"))
    assert needed is not None and min_tasks() <= needed <= 16
    assert _sign_flip_power(diffs, needed) >= 0.8 - 0.05  # draws of 400 and 1,500: a few SE
    assert _sign_flip_power(diffs, needed - 1) < 0.8 + 0.05
    assert sign_flip_tasks_needed(diffs, rng_for("t")) == needed  # seeded: reports re-render


def test_large_figures_come_from_the_same_test_approximated() -> None:
    diffs = np.array([1.0, -1.0] * 10 + [1.0, 0.0])  # a small mean against a wide spread
    needed = sign_flip_tasks_needed(diffs, rng_for("t"))
    z = 1.959963984540054 + 0.8416212335729143
    assert needed is not None and needed > 40
    assert needed == pytest.approx((z * diffs.std(ddof=1) / diffs.mean()) ** 2, rel=0.1)
