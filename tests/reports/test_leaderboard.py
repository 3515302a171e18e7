"""Leaderboard rows from a synthetic store: rates, pass@k, errors, policy, exclusions."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.reports import leaderboard, leaderboard_rows, report_summary
from tests.reports._world import World


def test_pass_at_k_matches_hand_computed_values(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"), samples=3, agents=("base",))
    w.outcomes("base", {"t1": "RFF", "t2": "RRF"})
    (row,) = leaderboard_rows("mini", **w.kwargs)
    # pass@1 = mean(1/3, 2/3); pass@2: t1 = 1 - C(2,2)/C(3,2) = 2/3, t2 = 1 - 0 = 1; pass@3 = 1
    assert row["pass@1"] == pytest.approx(0.5, abs=1e-6)
    assert row["pass@2"] == pytest.approx((2 / 3 + 1) / 2, abs=1e-6)
    assert row["pass@3"] == 1.0 and row["resolve_rate"] == pytest.approx(0.5, abs=1e-6)


def test_infra_errors_are_excluded_from_the_rate_and_counted_apart(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2", "t3", "t4", "t5"), agents=("base",))
    w.outcomes("base", {"t1": "R", "t2": "F", "t3": "E", "t4": "-", "t5": "Q"})
    (row,) = leaderboard_rows("mini", **w.kwargs)
    assert (row["attempts"], row["resolved"], row["errors"], row["tasks"]) == (2, 1, 3, 2)
    assert (row["error"], row["pending"], row["quarantined"]) == (1, 1, 1)
    assert row["resolve_rate"] == 0.5  # 1 of 2 graded, not 1 of 5


def test_policy_failures_count_as_not_resolved_and_show_apart(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"), agents=("base",))
    w.outcomes("base", {"t1": "R", "t2": "P"})
    (row,) = leaderboard_rows("mini", **w.kwargs)
    assert (row["policy"], row["resolve_rate"], row["cost_usd"]) == (1, 0.5, 0.02)
    assert row["cost_per_solved_usd"] == 0.02


def test_scores_valid_tasks_only_and_lists_the_rest(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2", "t3"), agents=("base",), verdicts={"t3": "flaky"})
    w.outcomes("base", {"t1": "R", "t2": "F"})
    s = report_summary("mini", **w.kwargs)
    assert s["leaderboard"][0]["planned"] == 2 and s["valid_tasks"] == 2
    assert s["excluded_tasks"] == [{"task_id": "t3", "verdict": "flaky",
                                    "why": "flaky in the test world", "fixture": None,
                                    "exploitable": []}]


def test_leaderboard_frame_has_the_same_rows(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1", "t2"))
    w.outcomes("base", {"t1": "F", "t2": "F"})
    w.outcomes("cand", {"t1": "R", "t2": "R"})
    df, rows = leaderboard("mini", **w.kwargs), leaderboard_rows("mini", **w.kwargs)
    assert list(df.index) == [r["agent"] for r in rows] == ["cand", "base"]
    assert list(df.reset_index().columns) == list(rows[0])
    assert df.loc["cand", "resolve_rate"] == 1.0 and df.loc["base", "resolved"] == 0
