"""Drive one agent through one attempt: its code in its own process (see `_isolation`), with the
harness's meter around the model and the sandbox and the harness's clock around the whole.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluator.agents import Agent, AttemptEnd, Submitted
from evaluator.attempts._conversation import Conversation
from evaluator.attempts._host import run_in_child
from evaluator.attempts._meter import Meter, MeteredModel, MeteredSandbox
from evaluator.errors import BadInputError, InfraError
from evaluator.model import ModelClient, Price
from evaluator.sandbox import Sandbox

_GRACE_S = 5.0


@dataclass
class AgentOutcome:
    """How the attempt ended (`exit_reason` as records show it), what the meter counted, and the
    conversation that passed through the harness's client."""

    exit_reason: str
    detail: str
    meter: Meter
    conversation: Conversation
    submission: str | None = None  # the patch the agent submitted, when it gave one


def drive_agent(agent: Agent, sandbox: Sandbox, model: ModelClient, *, problem_statement: str,
                workdir: str, seed: int, record_step: Callable[[str, str, dict[str, Any]], None],
                clock: Callable[[], float] = time.monotonic, grace_s: float = _GRACE_S,
                conversation: Conversation | None = None, price: Price | None = None
                ) -> AgentOutcome:
    """Run the agent's entry point to its end or its limits.

    InfraError and BadInputError (model endpoint, Docker, an unpriceable reply, a first request
    that cannot fit the cost limit) propagate: the caller records them as errors, never as agent
    failures. `price` is the model's table entry; each request is bounded by it before it is
    sent (`_spend`). So does a crash of the agent code,
    wrapped as InfraError.
    """
    limits = agent.spec.limits
    meter = Meter(limits, agent.spec.model.price, clock, price)
    context = {"problem_statement": problem_statement, "workdir": workdir, "seed": seed,
               "temperature": agent.spec.sampling.temperature,
               "max_tokens": agent.spec.sampling.max_tokens, "limits": limits.model_dump(),
               "prompts": agent.prompts, "settings": agent.spec.settings}
    metered = MeteredModel(model, meter, conversation)
    ended, _ = run_in_child(agent, MeteredSandbox(sandbox, meter, limits.command_timeout_s),
                            metered, meter, context=context, record_step=record_step,
                            grace_s=grace_s)
    return _outcome(meter, metered.conversation, ended)


def _outcome(meter: Meter, conversation: Conversation,
             exc: BaseException | None) -> AgentOutcome:
    if meter.ended is not None:  # the harness's limit is the exit, whatever the agent did next
        return AgentOutcome(meter.ended.exit_reason, str(meter.ended), meter, conversation)
    if exc is None:
        return AgentOutcome("returned", "", meter, conversation)
    if isinstance(exc, AttemptEnd):
        patch = exc.patch if isinstance(exc, Submitted) else None
        return AgentOutcome(exc.exit_reason, str(exc), meter, conversation, patch)
    if isinstance(exc, (InfraError, BadInputError)):
        raise exc
    # A crash in agent code is not the model's failure, and not a verdict on the agent either.
    raise InfraError(f"agent code crashed: {type(exc).__name__}: {exc}") from exc


__all__ = ["AgentOutcome", "drive_agent"]
