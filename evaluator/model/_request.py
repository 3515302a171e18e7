"""The request body of one chat completion: what the client sets, and what the caller adds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._types import Message, Tool

# Request fields the client sets itself; `extra` may not override them.
_OWN = frozenset({"model", "messages", "seed", "temperature", "max_tokens", "tools", "tool_choice",
                  "n", "stream", "stream_options"})


def request_body(model: str, messages: Sequence[Message], seed: int, temperature: float,
                 max_tokens: int | None, tools: Sequence[Tool] | None,
                 tool_choice: str | Mapping[str, Any] | None, n: int, stream: bool,
                 extra: Mapping[str, Any] | None) -> dict[str, Any]:
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    clash = sorted(_OWN & set(extra or {}))
    if clash:
        raise ValueError(f"extra may not set {clash}: pass them as complete()'s own arguments")
    body: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages],
                            "temperature": temperature, "seed": seed, **(extra or {})}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if tools:
        body["tools"] = [dict(t) for t in tools]
    if tool_choice is not None:
        body["tool_choice"] = tool_choice if isinstance(tool_choice, str) else dict(tool_choice)
    if n != 1:
        body["n"] = n
    if stream:
        # Without usage in the stream the harness could not count what the call cost.
        body.update(stream=True, stream_options={"include_usage": True})
    return body


__all__ = ["request_body"]
