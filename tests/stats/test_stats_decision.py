"""One decision rule: the verdict, the deciding test's p-value and the interval always agree."""

import numpy as np
import pytest

from evaluator.stats import paired_comparison
from evaluator.stats._evidence import gather
from evaluator.stats._paired import _round_keeping_side
from tests.stats._sim import disagrees


def _single(b_only: int, a_only: int, n: int) -> tuple[dict, dict]:
    a = {f"t{i:02d}": [int(b_only <= i < b_only + a_only)] for i in range(n)}
    b = {f"t{i:02d}": [int(i < b_only)] for i in range(n)}
    return a, b


def test_twelve_tasks_b_ahead_on_four_is_not_better() -> None:
    r = paired_comparison(*_single(4, 0, 12), seed_material="issue-15")
    assert (r.test, r.p_value, r.verdict) == ("mcnemar_exact", 0.125, "within noise")
    assert r.lo <= 0 < r.hi and r.widened  # the score interval alone would exclude zero
    assert r.delta == pytest.approx(4 / 12) and r.interval_method == "tango_score"


def test_mcnemar_decides_at_exactly_its_p_value() -> None:
    a, b = _single(8, 1, 30)  # p = 2 * 10 / 512
    p = paired_comparison(a, b, seed_material="q").p_value
    above = paired_comparison(a, b, seed_material="q", alpha=p * 1.001)
    below = paired_comparison(a, b, seed_material="q", alpha=p * 0.999)
    assert p == pytest.approx(20 / 512) and above.verdict == "better" and above.lo > 0
    assert below.verdict == "within noise" and below.lo <= 0


def test_the_bootstrap_decides_at_exactly_its_p_value() -> None:
    rng = np.random.default_rng(3)
    a = {f"t{i}": (rng.random(3) < 0.5).astype(int).tolist() for i in range(40)}
    b = {f"t{i}": (rng.random(3) < 0.6).astype(int).tolist() for i in range(40)}
    r = paired_comparison(a, b, seed_material="q")
    assert r.test == "sign_flip_permutation" and 0.0005 < r.p_value < 0.9
    above = paired_comparison(a, b, seed_material="q", alpha=min(0.99, r.p_value * 1.001))
    below = paired_comparison(a, b, seed_material="q", alpha=r.p_value * 0.999)
    assert above.verdict != "within noise" and (above.lo > 0 or above.hi < 0)
    assert below.verdict == "within noise" and below.lo <= 0 <= below.hi


@pytest.mark.parametrize("samples", [1, 2, 4])
def test_no_verdict_contradicts_its_test_or_interval(samples: int) -> None:
    rng = np.random.default_rng(samples)
    for i in range(300):
        n = int(rng.integers(2, 40))
        p_a, p_b = rng.random(2)
        a = {f"t{j}": (rng.random(samples) < p_a).astype(int).tolist() for j in range(n)}
        b = {f"t{j}": (rng.random(samples) < p_b).astype(int).tolist() for j in range(n)}
        alpha = float(rng.choice([0.01, 0.05, 0.1]))
        for decision in ("fixed", "sequential"):
            r = paired_comparison(a, b, seed_material=f"d{i}", n_boot=500, alpha=alpha,
                                  decision=decision)
            assert not disagrees(r), r


def test_a_rejecting_decision_always_gets_an_interval_off_zero() -> None:
    # The guard behind the score interval: asked to reject where it would reach zero, the far
    # end stops short of zero instead of contradicting the verdict.
    a, b = _single(4, 0, 12)
    e = gather(a, b, ids=sorted(a), seed_material="g", n_boot=100)
    lo, hi, widened = e.interval(0.05, reject=True)
    assert 0 < lo < hi and not widened


def test_rounding_never_moves_a_figure_across_its_line() -> None:
    assert _round_keeping_side(0.04999996, 0.05) == 0.04999996
    assert _round_keeping_side(4e-8, 0.0) == 4e-8
    assert _round_keeping_side(0.0312504, 0.05) == 0.03125
    d = paired_comparison(*_single(4, 0, 12), seed_material="r").to_dict()
    assert d["lo"] == 0.0 and d["p_value"] == 0.125 and d["widened"] is True
