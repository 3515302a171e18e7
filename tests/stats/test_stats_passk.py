import math

import pytest

from evaluator.stats import mean_pass_at_k, pass_at_k


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (5, 2, 1, 0.4),  # 1 - 3/5
        (5, 2, 2, 0.7),  # 1 - C(3,2)/C(5,2) = 1 - 3/10
        (4, 0, 2, 0.0),
        (4, 4, 3, 1.0),
        (5, 3, 3, 1.0),  # only two failures: any 3 draws include a success
        (10, 3, 5, 1 - 21 / 252),  # 1 - C(7,5)/C(10,5)
    ],
)
def test_pass_at_k_hand_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_matches_binomials_where_factorials_overflow_floats() -> None:
    n, c, k = 400, 17, 25
    exact = 1 - math.comb(n - c, k) / math.comb(n, k)
    assert pass_at_k(n, c, k) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(
    ("n", "c", "k", "match"),
    [
        (3, 1, 5, "k=5 exceeds the n=3"),
        (5, 6, 1, "c=6"),
        (5, -1, 1, "c=-1"),
        (5, 2, 0, "k=0"),
        (0, 0, 1, "n=0"),
        (5, 2, 1.0, "k must be an integer"),
    ],
)
def test_pass_at_k_rejects_impossible_arguments(n: int, c: int, k: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pass_at_k(n, c, k)


def test_mean_pass_at_k_weighs_tasks_equally() -> None:
    assert mean_pass_at_k([(5, 2), (4, 0), (3, 3)], 1) == pytest.approx((0.4 + 0 + 1) / 3)
    assert mean_pass_at_k([(5, 2), (10, 10)], 2) == pytest.approx((0.7 + 1) / 2)


def test_mean_pass_at_k_names_the_bad_task_and_rejects_no_tasks() -> None:
    with pytest.raises(ValueError, match=r"task 1: k=3 exceeds the n=2"):
        mean_pass_at_k([(5, 2), (2, 1)], 3)
    with pytest.raises(ValueError, match="at least one task"):
        mean_pass_at_k([], 1)
