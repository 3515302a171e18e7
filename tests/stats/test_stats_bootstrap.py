import math

import numpy as np
import pytest

from evaluator.stats import _bootstrap
from evaluator.stats._bootstrap import (
    bootstrap_means,
    bootstrap_p_value,
    expanded_alpha,
    expanded_percentile_interval,
    expanded_tail,
    rng_for,
)


@pytest.mark.parametrize("tasks_per_group", [0, 10**9])  # force multinomial, then index gather
def test_both_resampling_paths_match_the_plug_in_standard_error(
    monkeypatch: pytest.MonkeyPatch, tasks_per_group: int
) -> None:
    monkeypatch.setattr(_bootstrap, "_TASKS_PER_GROUP", tasks_per_group)
    values = np.repeat([-1.0, -1 / 3, 0.0, 2 / 3, 1.0], [10, 25, 80, 30, 15])
    boot = bootstrap_means(values, 20_000, rng_for("paths"))
    assert boot.mean() == pytest.approx(values.mean(), abs=0.002)
    assert boot.std() == pytest.approx(values.std() / math.sqrt(values.size), rel=0.03)


def test_index_gather_is_sliced_without_changing_the_answer_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_bootstrap, "_CHUNK_CELLS", 1000)  # 7 resamples of 137 per slice
    values = np.linspace(-1, 1, 137)
    boot = bootstrap_means(values, 50, rng_for("slices"))
    assert boot.shape == (50,) and np.all(np.abs(boot) <= 1)


def test_expanded_percentile_reads_t_scaled_quantiles() -> None:
    boot = rng_for("widen").normal(size=200_000)  # a standard normal bootstrap distribution
    for n, t in [(200, 1.971956544), (10, 2.262157163)]:  # t_{n-1, 0.975}
        half = t * math.sqrt(n / (n - 1))
        assert expanded_percentile_interval(boot, n, 0.05) == pytest.approx((-half, half), rel=0.02)
    with pytest.raises(ValueError, match="at least two tasks"):
        expanded_percentile_interval(boot, 1, 0.05)


def test_expanded_alpha_inverts_expanded_tail() -> None:
    for n, alpha in [(5, 0.05), (40, 0.01), (2000, 0.3)]:
        assert expanded_alpha(n, expanded_tail(n, alpha)) == pytest.approx(alpha, rel=1e-9)
    assert (expanded_alpha(9, 0.0), expanded_alpha(9, 0.5)) == (0.0, 1.0)


@pytest.mark.parametrize("shift", [0.03, -0.05, 0.12])
def test_bootstrap_p_value_is_where_the_interval_reaches_zero(shift: float) -> None:
    values = rng_for(f"p{shift}").normal(shift, 0.3, 30)
    boot = bootstrap_means(values, 4000, rng_for("boot"))
    p = bootstrap_p_value(boot, 30, float(values.mean()))
    for alpha in np.linspace(0.002, 0.6, 150):
        lo, hi = expanded_percentile_interval(boot, 30, alpha)
        assert (lo > 0 or hi < 0) == (p < alpha), alpha
    assert bootstrap_p_value(boot, 30, 0.0) == 1.0
