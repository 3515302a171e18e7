"""A deterministic, offline stand-in for a model, for unit tests of whatever drives one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._types import Completion, Usage

_DEFAULT_USAGE = Usage(prompt_tokens=10, completion_tokens=5)

Script = Sequence[str] | Callable[[list[dict[str, str]]], str]


@dataclass(frozen=True)
class ScriptedCall:
    """What one `complete` call was given, for assertions."""

    messages: list[dict[str, str]]
    seed: int
    temperature: float
    max_tokens: int | None


class ScriptExhaustedError(IndexError):
    """The conversation went on past the scripted replies."""


class ScriptedModel:
    """Replies from a list or a function of the messages, with fixed usage and cost.

    With a list, the reply is chosen by the number of assistant messages already in the history,
    not by a call counter: the same history always gets the same reply, as from a seeded model,
    and one instance can serve several attempts or threads.
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
        messages: list[dict[str, str]],
        *,
        seed: int,
        temperature: float,
        max_tokens: int | None = None,
    ) -> Completion:
        snapshot = [dict(m) for m in messages]
        with self._lock:
            self._calls.append(ScriptedCall(snapshot, seed, temperature, max_tokens))
        if callable(self._script):
            content = self._script(snapshot)
        else:
            step = sum(1 for m in messages if m.get("role") == "assistant")
            if step >= len(self._script):
                raise ScriptExhaustedError(
                    f"ScriptedModel has {len(self._script)} replies; step {step} asked for more"
                )
            content = self._script[step]
        return Completion(
            content=content,
            usage=self._usage,
            cost_usd=self._cost_usd,
            model=self.model,
            simulated=self._simulated,
            latency_s=0.0,
        )


__all__ = ["ScriptExhaustedError", "ScriptedCall", "ScriptedModel"]
