import math

import numpy as np
import pytest

from evaluator.stats import _bootstrap
from evaluator.stats._bootstrap import bootstrap_means, expanded_percentile_interval, rng_for


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
