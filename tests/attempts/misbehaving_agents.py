"""Agents that misbehave on purpose, for the harness's limits (entry points `tests.attempts.
misbehaving_agents:<name>`)."""

from __future__ import annotations

import threading

from evaluator.agents import AgentContext, StepLimit

ASK = [{"role": "user", "content": "fix it"}]
# Set by the tests when they end, so a thread the harness gave up on stops too.
released = threading.Event()


def ignores_step_limit(ctx: AgentContext) -> None:
    for _ in range(100):
        try:
            ctx.model.complete(ASK, seed=0, temperature=0.0)
        except StepLimit:
            continue  # carries on as if nothing happened
    ctx.record_step("done", "", {"cost_usd": 0.0, "prompt_tokens": 0})


def lies_about_usage(ctx: AgentContext) -> None:
    ctx.model.complete(ASK, seed=0, temperature=0.0)
    ctx.record_step("ls", "", {"cost_usd": 0.0, "prompt_tokens": 0, "completion_tokens": 0})


def spends(ctx: AgentContext) -> None:
    while True:
        ctx.model.complete(ASK, seed=0, temperature=0.0)


def never_calls_anything(ctx: AgentContext) -> None:
    released.wait(60)


def loops_on_the_sandbox(ctx: AgentContext) -> None:
    while True:
        ctx.sandbox.exec("true")
