"""An unpriced model's cost is shown as unpriced, never as $0."""

from __future__ import annotations

from pathlib import Path

from evaluator.reports import leaderboard_rows
from evaluator.reports._text import format_leaderboard
from tests.reports._world import UNKNOWN, World


def test_an_unpriced_agent_shows_unpriced_cost_and_a_priced_one_dollars(tmp_path: Path) -> None:
    w = World(tmp_path, ("t1",))
    w.outcome("base", "t1", 0, "resolved")
    w.outcome("cand", "t1", 0, "resolved", money=UNKNOWN)
    rows = {r["agent"]: r for r in leaderboard_rows("mini", **w.kwargs)}
    assert rows["cand"]["priced"] is False and rows["base"]["priced"] is True
    line = next(line for line in format_leaderboard(list(rows.values())).splitlines()
                if line.startswith("cand"))
    assert "unpriced" in line and "$" not in line
    assert "$0.0100" in format_leaderboard([rows["base"]])
