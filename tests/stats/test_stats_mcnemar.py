import itertools

import pytest
from scipy.stats import binomtest

from evaluator.stats import mcnemar_exact


@pytest.mark.parametrize(
    ("a_only", "b_only", "expected"),
    [
        (1, 6, 2 * (1 + 7) / 2**7),  # 0.125
        (6, 1, 0.125),
        (0, 5, 2 / 2**5),  # 0.0625
        (3, 10, 2 * (1 + 13 + 78 + 286) / 2**13),
        (0, 1, 1.0),
        (4, 4, 1.0),
        (0, 0, 1.0),  # no discordant tasks: no evidence either way
    ],
)
def test_mcnemar_hand_values(a_only: int, b_only: int, expected: float) -> None:
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_agrees_with_scipy_binomtest() -> None:
    for a_only, b_only in itertools.product([0, 1, 2, 7, 19, 40], repeat=2):
        if a_only + b_only:
            expected = binomtest(b_only, a_only + b_only, 0.5).pvalue
            assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("a_only", "b_only"), [(-1, 3), (2, -4), (1.5, 2), (True, 2)])
def test_mcnemar_rejects_non_counts(a_only: int, b_only: int) -> None:
    with pytest.raises(ValueError, match="non-negative integer"):
        mcnemar_exact(a_only, b_only)
