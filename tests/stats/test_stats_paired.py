import numpy as np
import pytest

from evaluator.stats import mcnemar_exact, paired_comparison


def _runs(seed: int, n_tasks: int = 60, samples: int = 3, p: float = 0.5) -> dict[str, list[int]]:
    rng = np.random.default_rng(seed)
    outcomes = (rng.random((n_tasks, samples)) < p).astype(int).tolist()
    return {f"task-{i:03d}": row for i, row in enumerate(outcomes)}


A, B = _runs(1), _runs(2, p=0.6)


def test_same_query_gives_identical_result_and_seed_material_matters() -> None:
    first = paired_comparison(A, B, seed_material="q1")
    assert paired_comparison(A, B, seed_material="q1") == first
    others = {paired_comparison(A, B, seed_material=f"q{i}").lo for i in range(2, 6)}
    assert others - {first.lo}


def test_result_does_not_depend_on_dict_order() -> None:
    shuffled = dict(reversed(list(B.items())))
    assert paired_comparison(A, shuffled, seed_material="q") == paired_comparison(
        A, B, seed_material="q"
    )


def test_interval_sanity() -> None:
    r = paired_comparison(A, B, seed_material="q")
    assert -1 <= r.lo < r.delta < r.hi <= 1
    assert r.delta == pytest.approx(r.mean_b - r.mean_a)
    assert r.n_tasks == 60 and r.n_boot == 10_000 and r.test == "sign_flip_permutation"
    wide = paired_comparison(A, B, seed_material="q", alpha=0.01)
    assert wide.lo < r.lo and wide.hi > r.hi


def test_unequal_task_sets_are_rejected_naming_the_ids() -> None:
    b = {k: v for k, v in B.items() if k != "task-007"} | {"extra": [1]}
    with pytest.raises(ValueError, match=r"only in a: 'task-007'; only in b: 'extra'"):
        paired_comparison(A, b, seed_material="q")


@pytest.mark.parametrize(
    "b", [{"t1": [], "t2": [1]}, {"t1": [2], "t2": [1]}, {"t1": [0.5], "t2": [1]}]
)
def test_bad_outcomes_are_rejected_naming_the_task(b: dict[str, list[int]]) -> None:
    with pytest.raises(ValueError, match=r"b\['t1'\]"):
        paired_comparison({"t1": [1], "t2": [0]}, b, seed_material="q")


def test_single_sample_uses_exact_mcnemar_on_discordant_tasks() -> None:
    # 1 task only A solves, 6 only B solves, 13 concordant.
    a = {f"t{i}": [int(i == 0 or i >= 14)] for i in range(20)}
    b = {f"t{i}": [int(1 <= i <= 6 or i >= 14)] for i in range(20)}
    r = paired_comparison(a, b, seed_material="q")
    assert (r.test, r.a_only, r.b_only, r.n_boot) == ("mcnemar_exact", 1, 6, 0)
    assert r.p_value == pytest.approx(0.125) == mcnemar_exact(1, 6)
    assert r.delta == pytest.approx(5 / 20) and r.verdict == "within noise" and r.lo <= 0


def test_multiple_samples_are_decided_by_the_task_clustered_bootstrap() -> None:
    r = paired_comparison(A, B, seed_material="q")
    assert (r.test, r.interval_method, r.family_size) == (
        "sign_flip_permutation", "bootstrap_expanded_percentile", 1)
    assert r.p_value == r.p_adjusted == r.p_fixed and (r.p_value < 0.05) == (r.lo > 0)
    assert (r.pairs_a_wins, r.pairs_b_wins) == (
        sum(x > y for t in A for x, y in zip(A[t], B[t], strict=True)),
        sum(y > x for t in A for x, y in zip(A[t], B[t], strict=True)))
