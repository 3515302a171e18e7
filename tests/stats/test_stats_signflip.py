"""The sign-flip permutation test that decides comparisons with several samples per task."""

import numpy as np
import pytest
from scipy.stats import norm

from evaluator.stats._signflip import sign_flip_p


def test_exact_for_few_tasks() -> None:
    # Three tasks all +1: only all-plus and all-minus reach |sum| 3, 2 of 8 assignments.
    assert sign_flip_p(np.array([1.0, 1.0, 1.0]), 100, np.random.default_rng(0)) == 0.25


def test_ties_count_as_at_least_as_far() -> None:
    d = np.array([1 / 3, 1 / 3, -1 / 3, 2 / 3])
    p = sign_flip_p(d, 100, np.random.default_rng(0))
    signs = 1 - 2 * ((np.arange(16)[:, None] >> np.arange(4)) & 1)
    assert p == np.mean(np.abs(signs @ d) >= abs(d.sum()) - 1e-12)


def test_monte_carlo_agrees_with_the_normal_limit_for_many_tasks() -> None:
    d = np.random.default_rng(1).choice([-1.0, 0.0, 1.0], size=400)
    d[:30] = 1.0
    z = abs(d.sum()) / np.sqrt((d ** 2).sum())
    p = sign_flip_p(d, 20_000, np.random.default_rng(2))
    assert p == pytest.approx(2 * norm.sf(z), abs=0.01)


def test_zero_difference_is_p_one() -> None:
    assert sign_flip_p(np.zeros(30), 100, np.random.default_rng(0)) == 1.0
