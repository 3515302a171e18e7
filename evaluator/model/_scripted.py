"""A deterministic, offline stand-in for a model, for unit tests of whatever drives one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._parse import parse_body
from ._types import Completion, Message, Tool, Usage

_DEFAULT_USAGE = Usage(prompt_tokens=10, completion_tokens=5)

# A reply is text, or an assistant message as the API shapes it (content and/or tool_calls).
Reply = str | Mapping[str, Any]
Script = Sequence[Reply] | Callable[[list[dict[str, Any]]], Reply]


@dataclass(frozen=True)
class ScriptedCall:
    """What one `complete` call was given, for assertions."""

    messages: list[dict[str, Any]]
    seed: int
    temperature: float
    max_tokens: int | None
    tools: list[dict[str, Any]] | None = None
    n: int = 1
    stream: bool = False


class ScriptExhaustedError(IndexError):
    """The conversation went on past the scripted replies."""


class ScriptedModel:
    """Replies from a list or a function of the messages, with fixed usage and cost.

    With a list, the reply is chosen by the number of assistant messages already in the history,
    not by a call counter: the same history always gets the same reply, as from a seeded model,
    and one instance can serve several attempts or threads. A reply with tool calls ends with
    finish_reason `tool_calls`; `n` choices are copies of the one reply.
    """

    def __init__(
        self,
        script: Script,
        *,
        model: str = "scripted",
        usage: Usage = _DEFAULT_USAGE,
        cost_usd: float = 0.0,
        simulated: bool = True,
    ) -> None:
        self._script = script if callable(script) else tuple(script)
        self.model = model
        self._usage = usage
        self._cost_usd = cost_usd
        self._simulated = simulated
        self._lock = threading.Lock()
        self._calls: list[ScriptedCall] = []

    @property
    def calls(self) -> list[ScriptedCall]:
        with self._lock:
            return list(self._calls)

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
    ) -> Completion:
        snapshot = [dict(m) for m in messages]
        offered = [dict(t) for t in tools] if tools else None
        with self._lock:
            self._calls.append(ScriptedCall(snapshot, seed, temperature, max_tokens, offered, n,
                                            stream))
        if callable(self._script):
            reply = self._script(snapshot)
        else:
            step = sum(1 for m in messages if m.get("role") == "assistant")
            if step >= len(self._script):
                raise ScriptExhaustedError(
                    f"ScriptedModel has {len(self._script)} replies; step {step} asked for more"
                )
            reply = self._script[step]
        message = {"role": "assistant", "content": reply} if isinstance(reply, str) else dict(reply)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        choices = parse_body({"choices": [{"index": i, "message": message, "finish_reason": finish}
                                          for i in range(n)]}).choices
        return Completion(
            content=choices[0].content or "",
            usage=self._usage,
            cost_usd=self._cost_usd,
            model=self.model,
            simulated=self._simulated,
            latency_s=0.0,
            choices=choices,
        )


__all__ = ["ScriptExhaustedError", "ScriptedCall", "ScriptedModel"]
