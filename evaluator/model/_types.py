"""The values a model call returns, and the seam every caller of a model goes through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

# The simulated endpoint marks its answers with this fingerprint so that no report can mistake a
# simulated run for a real model's.
SIMULATED_FINGERPRINT = "evaluator-simulated"


@dataclass(frozen=True)
class Usage:
    """Token counts as the endpoint reported them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Completion:
    """One assistant reply.

    `priced` is False when the price table had no entry for the model, so `cost_usd` is 0 because
    it is unknown, not because it was free. `latency_s` is the wall time of the attempt that
    succeeded, not counting retries and backoff.
    """

    content: str
    usage: Usage
    cost_usd: float
    model: str
    simulated: bool
    latency_s: float
    priced: bool = True


@runtime_checkable
class ModelClient(Protocol):
    """Anything that turns a chat history into the next assistant reply."""

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        seed: int,
        temperature: float,
        max_tokens: int | None = None,
    ) -> Completion: ...


__all__ = ["SIMULATED_FINGERPRINT", "Completion", "ModelClient", "Usage"]
