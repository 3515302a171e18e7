"""Coverage of the paired interval on synthetic agents whose true solve rates are known.

200 tasks of varied difficulty (logits ~ N(0, 1.5)); B's logit is A's plus a fixed shift, so
the true delta is the mean over tasks of p_b(t) - p_a(t). With 1,000 experiments the standard
error of a 95% coverage rate is 0.7 points, so [93%, 97%] is a band of about +/-3 SE.
"""

import numpy as np
import pytest

from evaluator.stats import paired_comparison

N_TASKS, N_EXPERIMENTS, N_BOOT = 200, 1000, 1000


def _coverage(shift: float, samples: np.ndarray, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    logit = rng.normal(0.0, 1.5, N_TASKS)
    p_a, p_b = 1 / (1 + np.exp(-logit)), 1 / (1 + np.exp(-(logit + shift)))
    true_delta = float(np.mean(p_b - p_a))
    width = int(samples.max())
    covered = within_noise = 0
    for e in range(N_EXPERIMENTS):
        a = rng.random((N_TASKS, width)) < p_a[:, None]
        b = rng.random((N_TASKS, width)) < p_b[:, None]
        r = paired_comparison(
            _runs(a, samples), _runs(b, samples), seed_material=f"cal-{seed}-{e}", n_boot=N_BOOT
        )
        covered += r.lo <= true_delta <= r.hi
        within_noise += r.verdict == "within noise"
    return covered / N_EXPERIMENTS, within_noise / N_EXPERIMENTS


def _runs(solved: np.ndarray, samples: np.ndarray) -> dict[str, list[int]]:
    rows = solved.astype(int).tolist()
    return {f"t{i}": rows[i][:s] for i, s in enumerate(samples.tolist())}


@pytest.mark.parametrize("samples", [1, 3])
def test_interval_covers_the_true_delta_95_percent_of_the_time(samples: int) -> None:
    coverage, _ = _coverage(0.4, np.full(N_TASKS, samples), seed=samples)
    assert 0.93 <= coverage <= 0.97


def test_equal_agents_are_within_noise_95_percent_of_the_time() -> None:
    # Half the tasks have one sample and half three, as when some runs were cut short.
    _, within_noise = _coverage(0.0, np.resize([1, 3], N_TASKS), seed=7)
    assert 0.93 <= within_noise <= 0.97
