"""The always-valid sequential test, and why it is offered: repeated looks."""

import numpy as np
import pytest

from evaluator.stats import anytime_p_value, mcnemar_exact, mixture_e_value, paired_comparison
from tests.stats._sim import sampling_slack

LOOKS, STEP, RUNS, ALPHA = 30, 10, 2000, 0.05


def test_e_value_hand_values() -> None:
    # 2^m B(b + 1/2, a + 1/2) / B(1/2, 1/2): with a = 0, b = 4 that is 16 * 105/384 = 4.375.
    assert mixture_e_value(0, 4) == pytest.approx(105 / 24)
    assert mixture_e_value(4, 0) == mixture_e_value(0, 4)
    assert mixture_e_value(0, 0) == 1.0 and anytime_p_value(0, 0) == 1.0
    assert mixture_e_value(30, 30) < 1 < mixture_e_value(10, 50)
    with pytest.raises(ValueError, match="non-negative"):
        mixture_e_value(-1, 2)


def _fair_coin_paths() -> np.ndarray:
    """B's wins after each of LOOKS looks at STEP more disagreeing pairs, under the null."""
    wins = np.random.default_rng(11).random((RUNS, LOOKS * STEP)) < 0.5
    return np.cumsum(wins, axis=1)[:, STEP - 1::STEP]


def test_looking_after_every_batch_keeps_the_sequential_error_at_alpha() -> None:
    paths = _fair_coin_paths()
    ever = [any(anytime_p_value(int(m - b), int(b)) < ALPHA
                for m, b in zip(range(STEP, STEP * LOOKS + 1, STEP), row, strict=True))
            for row in paths]
    assert np.mean(ever) <= ALPHA  # Ville's inequality: no slack needed, it is conservative


def test_looking_after_every_batch_inflates_the_fixed_sample_error() -> None:
    paths = _fair_coin_paths()
    ever = [any(mcnemar_exact(int(m - b), int(b)) < ALPHA
                for m, b in zip(range(STEP, STEP * LOOKS + 1, STEP), row, strict=True))
            for row in paths[:500]]
    assert np.mean(ever) > 2 * ALPHA + sampling_slack(2 * ALPHA, 500)


def test_sequential_decision_needs_both_tests() -> None:
    # B alone solves 6 of 20 tasks: exact McNemar p = 2/64, but e = 14.4 < 1/alpha.
    a = {f"t{i}": [0] for i in range(20)}
    b = {f"t{i}": [int(i < 6)] for i in range(20)}
    fixed = paired_comparison(a, b, seed_material="s")
    seq = paired_comparison(a, b, seed_material="s", decision="sequential")
    assert (fixed.verdict, fixed.test, fixed.p_value) == ("better", "mcnemar_exact", 2 / 64)
    assert (seq.verdict, seq.test) == ("within noise", "mixture_sprt")
    assert seq.p_value == pytest.approx(1 / seq.e_value) and seq.e_value == pytest.approx(14.4375)
    assert seq.lo <= 0 < seq.hi and seq.widened


def test_sequential_verdict_once_the_evidence_is_overwhelming() -> None:
    a = {f"t{i}": [0, 0] for i in range(20)}
    b = {f"t{i}": [1, int(i < 15)] for i in range(20)}
    r = paired_comparison(a, b, seed_material="s", decision="sequential")
    assert (r.pairs_b_wins, r.pairs_a_wins) == (35, 0) and r.verdict == "better"
    assert r.p_value == max(r.p_anytime, r.p_fixed) < 0.05 and r.lo > 0


def test_pairs_leaning_against_delta_give_the_sequential_test_no_support() -> None:
    # Ragged samples: A wins the first pair of every task, B has the higher task means.
    a = {f"t{i}": [1, 0, 0, 0] for i in range(30)}
    b = {f"t{i}": [0, 0, 0, 0, 1, 1, 1, 1] for i in range(30)}
    r = paired_comparison(a, b, seed_material="s", decision="sequential")
    assert r.delta == 0.25 and (r.pairs_a_wins, r.pairs_b_wins) == (30, 0)
    assert r.e_value > 20 and r.p_anytime == 1.0 == r.p_value and r.verdict == "within noise"
