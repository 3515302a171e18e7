import json
import math

import numpy as np
import pytest
from scipy import stats

from evaluator.stats import RateEstimate, resolve_rate


def test_binary_scores_get_the_wilson_interval() -> None:
    est = resolve_rate([1] * 7 + [0] * 3)
    # Wilson 95% for 7/10, as tabulated (e.g. Newcombe 1998): 0.3968 to 0.8922.
    assert (est.mean, est.n_tasks) == (0.7, 10)
    assert (est.lo, est.hi) == pytest.approx((0.3968, 0.8922), abs=1e-4)


def test_wilson_keeps_width_at_zero_and_one() -> None:
    none, every = resolve_rate(np.zeros(10)), resolve_rate(np.ones(10))
    assert none.lo == 0.0 and none.hi == pytest.approx(0.2775, abs=1e-4)
    assert every.hi == 1.0 and every.lo == pytest.approx(1 - 0.2775, abs=1e-4)


def test_fractional_scores_get_the_clustered_t_interval() -> None:
    scores = np.array([0.5, 1 / 3, 2 / 3, 1.0, 0.0, 0.2])
    half = stats.t.ppf(0.975, 5) * scores.std(ddof=1) / math.sqrt(6)
    est = resolve_rate(scores)
    assert est.mean == pytest.approx(scores.mean())
    assert (est.lo, est.hi) == pytest.approx((scores.mean() - half, scores.mean() + half))


def test_interval_is_clipped_to_unit_range_and_one_task_is_uninformative() -> None:
    est = resolve_rate([1.0, 1.0, 1.0, 2 / 3])
    assert est.hi == 1.0 and est.lo < est.mean
    assert resolve_rate([0.5]) == RateEstimate(mean=0.5, lo=0.0, hi=1.0, n_tasks=1)


@pytest.mark.parametrize("scores", [[], [0.5, 1.5], [-0.1], [float("nan")], [[0.5, 1.0]]])
def test_resolve_rate_rejects_bad_scores(scores: list[float]) -> None:
    with pytest.raises(ValueError):
        resolve_rate(scores)


def test_rate_to_dict_is_rounded_and_json_able() -> None:
    d = resolve_rate([1, 0, 0]).to_dict()
    assert d["mean"] == 0.333333 and d["n_tasks"] == 3
    assert json.loads(json.dumps(d)) == d
