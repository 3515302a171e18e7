"""Limits and cost are the harness's: every model call of an attempt is counted here, from the
replies that pass through, and the attempt is ended here at its step, cost and wall-clock limits,
whatever the agent's own loop does or records.

The agent gets a model and a sandbox wrapped by a `Meter`: past a limit each of them refuses with
the limit's `AttemptEnd`, again on every later call, so an agent that catches the exception and
carries on gets nothing more done; the harness records the limit as the exit reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evaluator.agents import (
    AttemptEnd,
    ContextLimit,
    CostLimit,
    LimitSpec,
    StepLimit,
    WallClockLimit,
)
from evaluator.attempts._conversation import Conversation, server_said
from evaluator.attempts._spend import admit
from evaluator.model import (
    Completion,
    ContextLengthError,
    Message,
    ModelClient,
    ModelRequestError,
    Price,
    Tool,
)
from evaluator.sandbox import ExecResult, Sandbox

FREE, UNPRICED = "free", "unpriced"


class Meter:
    """The counts and the limits of one attempt. `price` is the agent's `model.price`."""

    def __init__(self, limits: LimitSpec, price: str = "table",
                 clock: Callable[[], float] = time.monotonic, rate: Price | None = None) -> None:
        self.limits, self.price, self._clock = limits, price, clock
        self.rate = rate  # the model's table entry: what each request is bounded by
        self.started = clock()
        self.calls: list[dict[str, Any]] = []
        self.ended: AttemptEnd | None = None

    @property
    def cost_usd(self) -> float | None:
        """Model dollars so far; None when the model is unpriced (unknown, not zero)."""
        return None if self.price == UNPRICED else sum(c["cost_usd"] for c in self.calls)

    def remaining_s(self) -> float:
        return self.limits.wall_clock_s - (self._clock() - self.started)

    def end(self, reason: AttemptEnd) -> AttemptEnd:
        """Record the first limit reached; later ones do not replace it."""
        if self.ended is None:
            self.ended = reason
        return self.ended

    def check_time(self) -> None:
        if self.ended is not None:
            raise self.ended
        if self.remaining_s() <= 0:
            raise self.end(WallClockLimit(
                f"over {self.limits.wall_clock_s:g}s after {len(self.calls)} model calls"))

    def check_call(self) -> None:
        """Before a model call: refuse it past any limit."""
        self.check_time()
        if len(self.calls) >= self.limits.max_steps:
            raise self.end(StepLimit(f"{self.limits.max_steps} model calls without submitting"))
        cost = self.cost_usd
        if cost is not None and cost >= self.limits.max_cost_usd:
            raise self.end(CostLimit(f"${cost:.4f} spent, limit ${self.limits.max_cost_usd:g}"))

    def admit(self, messages: Sequence[Message], tools: Sequence[Tool] | None,
              max_tokens: int | None, n: int, extra: Mapping[str, Any] | None) -> int | None:
        """Before a priced request: the max_tokens to send with it, so that it cannot pass the
        cost limit (`_spend`); past the limit it is refused, never sent."""
        if self.price != "table" or self.rate is None:
            return max_tokens  # free, or unpriced (no cost limit): nothing to bound
        try:
            return admit(self.rate, self.cost_usd or 0.0, self.limits.max_cost_usd, messages,
                         tools, max_tokens, n, extra, first=not self.calls)
        except CostLimit as exc:
            raise self.end(exc) from None

    def account(self, reply: Completion) -> None:
        """Count one reply. A priced model whose reply cannot be priced is refused: the cost
        limit would be blind, and a $0 would be recorded for money spent."""
        if self.price not in (FREE, UNPRICED) and not (reply.priced and reply.usage.reported):
            why = "reported no token usage" if not reply.usage.reported else "has no price"
            raise ModelRequestError(
                f"model {reply.model!r} {why}, so the harness cannot count what the attempt "
                "costs; use an endpoint that reports usage and a price table entry for the model, "
                "or set `model.price: free` or `unpriced` in the agent config")
        u = reply.usage
        self.calls.append({
            "n": len(self.calls), "model": reply.model, "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens, "cached_tokens": u.cached_tokens,
            "reasoning_tokens": u.reasoning_tokens, "usage_reported": u.reported,
            "cost_usd": 0.0 if self.price in (FREE, UNPRICED) else reply.cost_usd,
            "choices": len(reply.choices), "finish_reason": reply.finish_reason,
            "latency_s": round(reply.latency_s, 3), "queue_s": round(reply.queue_s, 3),
            **server_said(reply)})

    def totals(self) -> dict[str, Any]:
        """What the attempt record says of usage and model cost."""
        keys = ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
        cost = self.cost_usd
        return {"model_calls": len(self.calls), **{k: sum(c[k] for c in self.calls) for k in keys},
                "model_usd": None if cost is None else round(cost, 6), "price": self.price}


class MeteredModel:
    """The model as an agent sees it: every call checked against the limits, then counted, and
    what was sent and answered kept in the conversation."""

    def __init__(self, inner: ModelClient, meter: Meter,
                 conversation: Conversation | None = None) -> None:
        self._inner, self._meter = inner, meter
        self.conversation = conversation if conversation is not None else Conversation()

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
        self._meter.check_call()
        max_tokens = self._meter.admit(messages, tools, max_tokens, n, extra)
        try:
            reply = self._inner.complete(messages, seed=seed, temperature=temperature,
                                         max_tokens=max_tokens, tools=tools,
                                         tool_choice=tool_choice, n=n, stream=stream, extra=extra)
        except ContextLengthError as exc:  # the history outgrew the model: the agent's end
            raise self._meter.end(ContextLimit(str(exc))) from None
        self._meter.account(reply)
        params = {"seed": seed, "temperature": temperature, "max_tokens": max_tokens,
                  "tool_choice": tool_choice, "n": n, "stream": stream, "extra": extra}
        self.conversation.add(messages, tools, reply,
                              {k: v for k, v in params.items() if v is not None})
        return reply


class MeteredSandbox:
    """The sandbox as an agent sees it: refused once the attempt has ended, no command may run
    past the attempt's wall clock, and every command runs as the task's user."""

    def __init__(self, inner: Sandbox, meter: Meter, default_timeout_s: float) -> None:
        self._inner, self._meter, self._default = inner, meter, default_timeout_s

    def exec(self, cmd: str, *, timeout_s: float | None = None, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult:
        self._meter.check_time()
        if user is not None:  # commands run as the task's user; another would be a way out
            raise ValueError("an agent's commands run as the task's user; do not pass `user`")
        budget = min(self._default if timeout_s is None else timeout_s, self._meter.remaining_s())
        return self._inner.exec(cmd, timeout_s=max(budget, 0.001), workdir=workdir, env=env,
                                user=user)

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None:
        self._meter.check_time()
        self._inner.put_files(files, mode=mode)

    def read_file(self, path: str, max_bytes: int = 10_000_000) -> bytes:
        self._meter.check_time()
        return self._inner.read_file(path, max_bytes=max_bytes)


__all__ = ["FREE", "UNPRICED", "Meter", "MeteredModel", "MeteredSandbox"]
