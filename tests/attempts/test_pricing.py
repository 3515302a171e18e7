"""An unpriced model is an error at plan time, unless the agent config says free or unpriced."""

from __future__ import annotations

import pytest
import yaml

from evaluator.attempts import estimate_cost, format_summary
from evaluator.errors import BadInputError
from tests.reports._world import SET, World


def with_prices(w: World, table: dict | None, **model: object) -> World:
    spec = yaml.safe_load((w.evals_root / f"{SET}.yaml").read_text())
    if table is not None:
        (w.evals_root / "prices.yaml").write_text(yaml.safe_dump(table))
        spec["prices"] = "prices.yaml"
    (w.evals_root / f"{SET}.yaml").write_text(yaml.safe_dump(spec))
    path = w.agents_root / "base" / "agent.yaml"
    agent = yaml.safe_load(path.read_text())
    agent["model"].update({"price": "table", **model})  # the world prices its agents free
    path.write_text(yaml.safe_dump(agent))
    w._plan = None
    return w


@pytest.fixture
def world(tmp_path) -> World:
    return World(tmp_path / "w", tasks=("t1",), agents=("base",), baseline=None)


def test_a_model_missing_from_the_price_table_is_refused_with_the_fixes(world) -> None:
    with pytest.raises(BadInputError, match=r"(?s)agent 'base': model 'sim' has no price in "
                       r".*prices\.yaml.*model\.price: free.*model\.price: unpriced"):
        with_prices(world, {"other": {"input_per_mtok": 1, "output_per_mtok": 1}}).plan().check_runnable()


def test_an_unpriced_model_refuses_its_agent_alone(tmp_path) -> None:
    """Issue 31: one agent's unpriced model failed the whole eval of its set."""
    w = with_prices(World(tmp_path / "w", tasks=("t1",), agents=("base", "other"), baseline=None),
                    {"other": {"input_per_mtok": 1, "output_per_mtok": 1}})
    plan = w.plan()
    assert "base" in plan.refused and "has no price" in plan.refused["base"]
    assert {pa.agent.name for pa in plan.attempts} == {"other"}


@pytest.mark.parametrize(("price", "how"), [("free", "model is free"),
                                            ("unpriced", "model cost unknown (unpriced)")])
def test_an_acknowledged_price_mode_plans_and_says_how_it_is_costed(world, price, how) -> None:
    plan = with_prices(world, None, price=price).plan()
    plan.check_runnable()
    assert plan.price_problems == () and len(plan.attempts) == 1
    cost, said = estimate_cost(world.store, plan.attempts[0].agent)
    assert cost == 0.0 and how in said


def test_the_models_price_is_in_the_attempt_key(world) -> None:
    cheap = with_prices(world, {"sim": {"input_per_mtok": 1, "output_per_mtok": 1}}).plan()
    dear = with_prices(world, {"sim": {"input_per_mtok": 9, "output_per_mtok": 9}}).plan()
    assert cheap.attempts[0].key != dear.attempts[0].key  # the cost limit trips by the price


def test_the_summary_shows_an_unpriced_agent_as_unpriced_not_zero() -> None:
    counts = dict.fromkeys(("planned", "resolved", "failed", "policy", "pending", "error",
                            "quarantined"), 0)
    row = {"agent": "a", "simulated": False, "priced": False, "cost_usd": 0.0, **counts}
    assert format_summary([row]).splitlines()[1].endswith("unpriced")
