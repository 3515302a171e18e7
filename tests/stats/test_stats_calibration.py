"""Calibration of the paired comparison at the sizes users have: 10, 20, 50 and 200 tasks, one
sample per task (exact McNemar decides) and three (the sign-flip test decides, the task-clustered
bootstrap gives the interval).

1,000 experiments per case (3,000 with one sample, where they are cheap and the exact test's
discreteness makes coverage lumpy): a 95% coverage rate then has a standard error of at most
0.7 points, so [93%, 97%] is a band of at least +/-3 SE; a false-verdict rate at most 5% is
checked to within 3 SE of the simulation. Every verdict must agree with its own test and
interval.
"""

import numpy as np
import pytest

from evaluator.stats import paired_comparison, paired_comparisons
from tests.stats._sim import agents, disagrees, experiments, sampling_slack

SIZES, N_EXPERIMENTS, N_BOOT, ALPHA = (10, 20, 50, 200), 1000, 1000, 0.05


def _runs(samples: int) -> int:
    return 3 * N_EXPERIMENTS if samples == 1 else N_EXPERIMENTS


def _compare(n_tasks: int, samples: int, shift: float) -> tuple[float, list]:
    pair = agents(n_tasks, shift, seed=n_tasks)
    results = [paired_comparison(a, bs[0], seed_material=f"cal-{n_tasks}-{samples}-{i}",
                                 n_boot=N_BOOT)
               for i, (a, bs) in enumerate(experiments(pair, samples, _runs(samples),
                                                       seed=samples))]
    return pair.true_delta, results


@pytest.mark.parametrize("samples", [1, 3])
@pytest.mark.parametrize("n_tasks", SIZES)
def test_interval_covers_the_true_delta_95_percent_of_the_time(n_tasks: int, samples: int) -> None:
    true_delta, results = _compare(n_tasks, samples, shift=0.4)
    coverage = np.mean([r.lo <= true_delta <= r.hi for r in results])
    assert 0.93 <= coverage <= 0.97
    assert not [r for r in results if disagrees(r)]


@pytest.mark.parametrize("samples", [1, 3])
@pytest.mark.parametrize("n_tasks", SIZES)
def test_equal_agents_are_called_better_or_worse_at_most_alpha(n_tasks: int, samples: int) -> None:
    _, results = _compare(n_tasks, samples, shift=0.0)
    false_verdicts = np.mean([r.verdict != "within noise" for r in results])
    assert false_verdicts <= ALPHA + sampling_slack(ALPHA, _runs(samples))
    assert not [r for r in results if disagrees(r)]


@pytest.mark.parametrize("samples", [1, 3])
def test_five_equal_candidates_keep_the_family_wise_error_with_holm(samples: int) -> None:
    pair = agents(50, 0.0, seed=5)
    any_false = any_unadjusted = 0
    for i, (a, bs) in enumerate(experiments(pair, samples, N_EXPERIMENTS, seed=9, candidates=5)):
        family = paired_comparisons([(a, b, f"fam-{i}-{j}") for j, b in enumerate(bs)],
                                    n_boot=N_BOOT)
        assert [r.family_size for r in family] == [5] * 5 and not any(map(disagrees, family))
        any_false += any(r.verdict != "within noise" for r in family)
        any_unadjusted += any(r.p_value < ALPHA for r in family)
    assert any_false / N_EXPERIMENTS <= ALPHA + sampling_slack(ALPHA, N_EXPERIMENTS)
    # Without Holm the family would be wrong far more often: the check has teeth.
    assert any_unadjusted / N_EXPERIMENTS > 2 * ALPHA
