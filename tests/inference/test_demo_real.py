"""`make demo-real`'s agent and eval point at the server `make serve-model` runs, and are
labelled real, not simulated."""

from __future__ import annotations

from evaluator.agents import load_agent
from evaluator.attempts import load_eval
from evaluator.inference import MODEL_ID
from evaluator.model import Prices
from tests.pipeline.support import REPO


def test_the_demo_real_agent_is_the_real_models() -> None:
    agent = load_agent("reference-smollm2", REPO / "agents")
    assert not agent.simulated and agent.spec.model.id == MODEL_ID
    # The port of `make serve-model` / `python -m evaluator.inference` (8642 by default).
    assert agent.spec.model.endpoint == "http://127.0.0.1:8642/v1"
    spec = load_eval("demo", REPO / "evals" / "real")
    assert spec.agents == ["reference-smollm2"] and MODEL_ID in spec.price_table()
    assert MODEL_ID in Prices.load(REPO / "evals" / "prices.yaml")
