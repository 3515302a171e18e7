"""A run of an unpriced model reports its cost as unknown, not as $0."""

from __future__ import annotations

from tests.api.support import Api
from tests.reports._world import UNKNOWN, World


def test_an_unpriced_run_has_no_dollar_figure_and_says_why(api: Api, world: World) -> None:
    for task in ("t1", "t2", "t3"):
        world.outcome("cand", task, 0, "resolved", money=UNKNOWN)
    view = api.run(api.post(agent_version="cand", task_set="mini", samples=1).json()["id"])
    assert view["counts"]["done"] == 3
    assert view["cost_usd"] is None and view["cost_unpriced"] is True


def test_a_priced_run_keeps_its_dollars(api: Api, world: World) -> None:
    world.outcomes("base", {"t1": "R", "t2": "F", "t3": "P"})
    view = api.run(api.post(agent_version="base", task_set="mini", samples=1).json()["id"])
    assert view["cost_usd"] == 0.03 and view["cost_unpriced"] is False
