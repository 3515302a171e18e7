"""The values a model call returns, and the seam every caller of a model goes through.

The shapes follow OpenAI chat completions: a reply has one or more choices (`n`), each with text
content and/or tool calls and a `finish_reason`; usage counts prompt, cached prompt, completion
and reasoning tokens. Requests may carry content parts, tool calls and tool results as the API
defines them: the client passes messages through as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# The simulated endpoint marks its answers with this fingerprint so that no report can mistake a
# simulated run for a real model's.
SIMULATED_FINGERPRINT = "evaluator-simulated"

Message = Mapping[str, Any]
Tool = Mapping[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token counts as the endpoint reported them; `reported` is False when it sent none, so a
    zero is not mistaken for a free call. Cached tokens are part of the prompt tokens, reasoning
    tokens part of the completion tokens, as in the API."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    reported: bool = True


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; `arguments` is the JSON text as the model wrote
    it, which may not parse (that is the agent's to handle, as with any reply)."""

    id: str
    name: str
    arguments: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class Choice:
    """One of the `n` replies: text and/or tool calls, and why generation stopped."""

    index: int
    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    refusal: str | None = None

    def message(self) -> dict[str, Any]:
        """The assistant message to append to the history, as the API shapes it."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [t.to_dict() for t in self.tool_calls]
        if self.refusal is not None:
            out["refusal"] = self.refusal
        return out


@dataclass(frozen=True)
class Completion:
    """One model call's answer. `content`, `tool_calls`, `finish_reason` and `message` are the
    first choice's; `choices` holds all `n`.

    `priced` is False when the price table had no entry for the model, so `cost_usd` is 0 because
    it is unknown, not because it was free. `latency_s` is the wall time of the attempt that
    succeeded, not counting retries and backoff; `queue_s` how long it waited for the bound on
    requests in flight first. `timings` are the server's own, as it sent them (llama.cpp's
    `prompt_n`, `prompt_ms`, `predicted_n`, `predicted_ms`, ...; None when it sent none), and
    `fingerprint` its `system_fingerprint`.
    """

    content: str
    usage: Usage
    cost_usd: float
    model: str
    simulated: bool
    latency_s: float
    priced: bool = True
    choices: tuple[Choice, ...] = field(default=())
    queue_s: float = 0.0
    timings: Mapping[str, float] | None = None
    fingerprint: str | None = None

    def __post_init__(self) -> None:
        if not self.choices:  # a text-only reply built by hand (fakes, tests)
            object.__setattr__(self, "choices", (Choice(0, self.content, (), "stop"),))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.choices[0].tool_calls

    @property
    def finish_reason(self) -> str | None:
        return self.choices[0].finish_reason

    @property
    def message(self) -> dict[str, Any]:
        return self.choices[0].message()


@runtime_checkable
class ModelClient(Protocol):
    """Anything that turns a chat history into the next assistant reply.

    `tools` and `tool_choice` are passed as the API defines them; `n` asks for several choices;
    `stream` has the endpoint stream its reply (the caller still gets it whole); `extra` holds
    any other request field (top_p, stop, parallel_tool_calls, ...), passed as it is.
    """

    def complete(
        self,
        messages: Sequence[Message],
        *,
        seed: int,
        temperature: float,
        max_tokens: int | None = None,
        tools: Sequence[Tool] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        n: int = 1,
        stream: bool = False,
        extra: Mapping[str, Any] | None = None,
    ) -> Completion: ...


__all__ = [
    "SIMULATED_FINGERPRINT",
    "Choice",
    "Completion",
    "Message",
    "ModelClient",
    "Tool",
    "ToolCall",
    "Usage",
]
