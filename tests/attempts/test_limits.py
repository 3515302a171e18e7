"""Limits and cost are the harness's: counted from the model's replies, enforced whatever the agent."""

from __future__ import annotations

import pytest

from evaluator.errors import BadInputError
from evaluator.model import Completion, ScriptedModel, Usage
from tests.attempts.support import FakeSandbox, agent, drive


def test_usage_and_cost_are_counted_from_the_replies(tmp_path) -> None:
    out = drive(agent(tmp_path, "lies_about_usage"),
                ScriptedModel(lambda m: "hi", usage=Usage(100, 20, cached_tokens=40), cost_usd=0.25))
    totals = out.meter.totals()
    assert (totals["model_calls"], totals["prompt_tokens"], totals["cached_tokens"]) == (1, 100, 40)
    assert totals["model_usd"] == 0.25 and out.exit_reason == "returned"


def test_an_agent_that_ignores_its_step_limit_is_ended_by_the_harness(tmp_path) -> None:
    out = drive(agent(tmp_path, "ignores_step_limit", max_steps=3))
    assert out.exit_reason == "step_limit" and len(out.meter.calls) == 3


def test_the_cost_limit_refuses_the_next_call(tmp_path) -> None:
    out = drive(agent(tmp_path, "spends", max_cost_usd=0.05))
    assert out.exit_reason == "cost_limit" and len(out.meter.calls) == 5


def test_an_agent_that_calls_nothing_is_killed_at_the_wall_clock(tmp_path) -> None:
    out = drive(agent(tmp_path, "never_calls_anything", wall_clock_s=0.5), grace_s=0.1)
    assert out.exit_reason == "wall_clock_limit" and "killed by the harness" in out.detail


def test_commands_are_cut_to_the_wall_clock_and_then_refused(tmp_path) -> None:
    # The clock runs from the agent's process start (over four seconds at load 15), so the
    # limit leaves room for some commands before it cuts them.
    sandbox = FakeSandbox()
    out = drive(agent(tmp_path, "loops_on_the_sandbox", wall_clock_s=8.0), sandbox=sandbox)
    assert out.exit_reason == "wall_clock_limit" and sandbox.timeouts
    assert all(t is not None and t <= 8.0 for t in sandbox.timeouts)
    assert min(t for t in sandbox.timeouts if t is not None) < 0.5


def test_a_priced_agent_whose_reply_cannot_be_priced_is_refused(tmp_path) -> None:
    class Unpriced(ScriptedModel):
        def complete(self, *args, **kw) -> Completion:
            return Completion("hi", Usage(1, 1), 0.0, "m", True, 0.0, priced=False)

    with pytest.raises(BadInputError, match="no price.*model.price: free"):
        drive(agent(tmp_path, "spends"), Unpriced(["x"]))


def test_an_unpriced_agent_records_cost_as_unknown_not_zero(tmp_path) -> None:
    out = drive(agent(tmp_path, "lies_about_usage", price="unpriced"))
    assert out.meter.totals()["model_usd"] is None
