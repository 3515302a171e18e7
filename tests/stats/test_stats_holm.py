import pytest

from evaluator.stats import holm_adjust, holm_levels, paired_comparison, paired_comparisons


def test_holm_hand_values() -> None:
    # Sorted 0.01, 0.03, 0.04 -> 3 * 0.01, max(0.03, 2 * 0.03), max(0.06, 1 * 0.04).
    assert holm_adjust([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjust([0.5, 0.9]) == [1.0, 1.0]
    assert holm_adjust([0.2]) == [0.2] and holm_adjust([]) == []


def test_holm_levels_step_down_and_ties_share_a_level() -> None:
    assert holm_levels([0.01, 0.04, 0.03], 0.05) == pytest.approx([0.05 / 3, 0.05, 0.025])
    assert holm_levels([0.02, 0.02, 0.3], 0.05) == pytest.approx([0.05 / 3, 0.05 / 3, 0.05])


def test_a_rejected_hypothesis_is_below_its_level() -> None:
    p = [0.001, 0.012, 0.02, 0.3, 0.011]
    for q, adj, level in zip(p, holm_adjust(p), holm_levels(p, 0.05), strict=True):
        assert adj >= q and (adj >= 0.05 or q < level)


def _runs(solved: int, n: int = 30) -> dict[str, list[int]]:
    return {f"t{i:02d}": [int(i < solved)] for i in range(n)}


def test_a_family_adjusts_and_reads_each_interval_at_its_step_level() -> None:
    base = _runs(0)
    family = paired_comparisons([(base, _runs(k), f"f{k}") for k in (9, 7, 1)])
    alone = [paired_comparison(base, _runs(k), seed_material=f"f{k}") for k in (9, 7, 1)]
    assert [r.family_size for r in family] == [3, 3, 3]
    assert [r.p_value for r in family] == [r.p_value for r in alone]  # unadjusted kept
    assert family[0].p_adjusted == pytest.approx(3 * alone[0].p_value)
    assert [r.level for r in family] == pytest.approx([0.05 / 3, 0.025, 0.05])
    assert family[0].lo < alone[0].lo  # a 98.3% interval is wider than a 95% one
    assert [r.verdict for r in family] == ["better", "better", "within noise"]
