"""Agents whose requests would pass their cost limit, for the harness's check before a request
is sent (entry points `tests.attempts.spending_agents:<name>`)."""

from __future__ import annotations

from evaluator.agents import AgentContext


def sends_the_problem(ctx: AgentContext) -> None:
    """One request holding the problem statement, no max_tokens: what every scaffold sends."""
    ctx.model.complete([{"role": "user", "content": ctx.problem_statement}], seed=0,
                       temperature=0.0)


def grows(ctx: AgentContext) -> None:
    """A small request, then one that pastes 400 KB of output back (a log, say)."""
    ask = [{"role": "user", "content": "fix it"}]
    ctx.model.complete(ask, seed=0, temperature=0.0, max_tokens=100)
    ctx.model.complete([*ask, {"role": "user", "content": "x" * 400_000}], seed=0,
                       temperature=0.0, max_tokens=100)
