"""Money before it is spent: the most one model request can cost, bounded before it is sent.

The cost limit used to be checked against what was already spent, so one request could pass it
by any amount: a 60 MB problem statement passed the lock and one call cost $45.00 against a
$0.50 limit (and a $25 budget). Now every request is bounded first. Its prompt is in hand, and
every token of a prompt is at least one byte of the text sent (byte-level BPE and byte-fallback
tokenizers alike), so the UTF-8 size of the messages and tools as sent, plus an allowance for
the chat template's own tokens and for images, bounds its input tokens; its reply is bounded by
`max_tokens` times the choices asked for. A request whose bound at the model's price passes
what is left of the attempt's limit is not sent: the attempt ends at its cost limit. A request
without `max_tokens` is sent with one, the most the rest of the limit buys (at most
`REPLY_CAP`), so no reply can pass the limit either.

The first request of an attempt carries the task's problem statement; when even it cannot fit
in the whole limit, that is the task's input, not the agent: `InputTooLarge` (bad input).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.agents import CostLimit
from evaluator.errors import BadInputError
from evaluator.model import Price

MESSAGE_TOKENS = 8  # a chat template's own tokens around one message, beyond its bytes
REQUEST_TOKENS = 64  # the reply's priming and the template's frame
TOOLS_TOKENS = 1024  # a template that renders tool schemas in words of its own
IMAGE_TOKENS = 4096  # one image part, whatever the length of its URL
REPLY_CAP = 16_384  # the max_tokens sent for an agent that sends none, when the limit buys more


class InputTooLarge(BadInputError):
    """The first request of an attempt cannot fit in its whole cost limit: the task's input is
    too large for the agent's limit (the task's fault, never the agent's)."""


@dataclass(frozen=True)
class Bound:
    """The most a request can use: tokens in, tokens out, and their dollars at the price."""

    input_tokens: int
    output_tokens: int
    usd: float
    sent_bytes: int


def input_tokens(messages: Sequence[Any], tools: Sequence[Any] | None) -> tuple[int, int]:
    """(a bound on the prompt tokens of a request, the bytes it sends)."""
    sent = len(json.dumps([list(messages), list(tools or ())], ensure_ascii=False).encode())
    images = 0  # content parts other than text: an image's tokens are not its URL's bytes
    for m in messages:
        parts = m.get("content") if isinstance(m, Mapping) else None
        if isinstance(parts, list):
            images += sum(isinstance(p, Mapping) and p.get("type") != "text" for p in parts)
    return (sent + REQUEST_TOKENS + MESSAGE_TOKENS * len(messages) + IMAGE_TOKENS * images
            + (TOOLS_TOKENS if tools else 0)), sent


def usd(price: Price, tokens_in: int, tokens_out: int) -> float:
    """Dollars of `tokens_in` prompt and `tokens_out` reply tokens (cached input at the dearer
    of its two prices, since a bound cannot know what will be cached)."""
    cached = price.cached_input_per_mtok or 0.0
    return (tokens_in * max(price.input_per_mtok, cached)
            + tokens_out * price.output_per_mtok) / 1_000_000


def reply_tokens(max_tokens: int | None, extra: Mapping[str, Any] | None) -> int | None:
    """The reply cap the request already carries (`max_completion_tokens` in `extra` wins, as
    OpenAI's reasoning models take it), or None."""
    cap = (extra or {}).get("max_completion_tokens", max_tokens)
    return cap if isinstance(cap, int) and cap > 0 else None


def admit(price: Price, spent: float, limit: float, messages: Sequence[Any],
          tools: Sequence[Any] | None, max_tokens: int | None, n: int,
          extra: Mapping[str, Any] | None, *, first: bool) -> int | None:
    """The max_tokens to send with this request (the agent's own, or one that fits the rest of
    the limit when it sent none). CostLimit when the request could pass the limit;
    InputTooLarge when it is the first request and its prompt alone passes the whole limit."""
    tokens_in, sent = input_tokens(messages, tools)
    left = limit - spent
    prompt_usd = usd(price, tokens_in, 0)
    if first and prompt_usd > limit:
        raise InputTooLarge(
            f"the first request of the attempt sends {sent:,} bytes (the task's problem "
            f"statement and the agent's prompts): up to {tokens_in:,} tokens, ${prompt_usd:.2f} "
            f"at the model's input price, over the agent's whole ${limit:g} limit per attempt "
            "(limits.max_cost_usd); shorten the task's problem statement, or raise the limit")
    cap = reply_tokens(max_tokens, extra)
    choices = max(n, 1)
    if cap is None:  # nothing bounds the reply: send the most the rest of the limit buys
        per_token = price.output_per_mtok / 1_000_000 * choices
        affordable = math.floor((left - prompt_usd) / per_token) if per_token else REPLY_CAP
        cap = min(max(affordable, 0), REPLY_CAP)
        max_tokens = cap if cap > 0 else None
    bound = prompt_usd + usd(price, 0, cap * choices)
    if cap <= 0 or bound > left:
        raise CostLimit(f"the next model request could cost up to ${bound:.4f} ({sent:,} bytes "
                        f"sent, at most {cap * choices:,} reply tokens), over the ${left:.4f} "
                        f"left of the ${limit:g} limit per attempt; not sent")
    return max_tokens


def cannot_fit(price: Mapping[str, Any] | str | None, problem_bytes: int, limit: float) -> str:
    """Why a task's problem statement alone cannot fit in an agent's cost limit at its price
    ("" when it can): the plan refuses that pair as the task's input, before anything is paid."""
    if not isinstance(price, Mapping):
        return ""  # free, unpriced (no cost limit) or unpriceable (refused with the agent)
    tokens = problem_bytes + REQUEST_TOKENS
    bound = usd(Price.model_validate(price), tokens, 0)
    if bound <= limit:
        return ""
    return (f"its problem statement is {problem_bytes:,} bytes: up to {tokens:,} prompt tokens, "
            f"${bound:.2f} at the model's input price, over the agent's whole ${limit:g} limit "
            "per attempt (limits.max_cost_usd); shorten the problem statement or raise the limit")


def ceiling(limit_usd: float, price_mode: str, wall_clock_s: float,
            sandbox_usd_per_hour: float) -> float:
    """The most one attempt can cost: its model limit (which every request is bounded by) and
    its sandbox for its whole wall clock. A run reserves this from its budget, so the budget
    holds whatever the attempts in flight do."""
    model = limit_usd if price_mode == "table" else 0.0  # free; unpriced is unknown
    return model + wall_clock_s / 3600 * sandbox_usd_per_hour
