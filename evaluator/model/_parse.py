"""Reading a chat-completions answer: a JSON body, or a server-sent event stream put back together
into the body it stands for, so both go through one validation."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._types import Choice, ToolCall, Usage


class Malformed(ValueError):
    """The body is not a chat completion; the message says what is missing."""


@dataclass(frozen=True)
class Parsed:
    choices: tuple[Choice, ...]
    usage: Usage
    model: str | None
    fingerprint: str | None
    timings: dict[str, float] | None = None


def parse_body(data: Any) -> Parsed:
    if not isinstance(data, dict):
        raise Malformed("body is not a JSON object")
    raw = data.get("choices")
    if not isinstance(raw, list) or not raw or not all(isinstance(c, dict) for c in raw):
        raise Malformed("no choices in body")
    choices = tuple(sorted((_choice(i, c) for i, c in enumerate(raw)), key=lambda c: c.index))
    model, fingerprint = data.get("model"), data.get("system_fingerprint")
    return Parsed(choices, _usage(data.get("usage")),
                  model if isinstance(model, str) else None,
                  fingerprint if isinstance(fingerprint, str) else None,
                  _timings(data.get("timings")))


def _timings(raw: Any) -> dict[str, float] | None:
    """A server's own timings (llama.cpp sends them beside usage): its numbers, nothing else."""
    if not isinstance(raw, dict):
        return None
    return {str(k): v for k, v in raw.items()
            if isinstance(v, int | float) and not isinstance(v, bool)}


def _choice(position: int, raw: dict[str, Any]) -> Choice:
    message = raw.get("message")
    if not isinstance(message, dict):
        raise Malformed("no message in choice")
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise Malformed("tool_calls is not a list")
    index, finish, refusal = raw.get("index"), raw.get("finish_reason"), message.get("refusal")
    # A null content is an answer (a refusal, or tool calls only), not a transport fault.
    return Choice(index=index if isinstance(index, int) else position,
                  content=_text(message.get("content")),
                  tool_calls=tuple(_tool_call(c) for c in calls),
                  finish_reason=finish if isinstance(finish, str) else None,
                  refusal=refusal if isinstance(refusal, str) else None)


def _text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: the text ones, in order
        return "".join(p.get("text", "") for p in content
                       if isinstance(p, dict) and p.get("type") == "text")
    raise Malformed("content is neither text, null nor a list of parts")


def _tool_call(raw: Any) -> ToolCall:
    fn = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise Malformed("a tool call has no function name")
    args = fn.get("arguments", "")
    # Some servers send the arguments as an object; the API's shape is JSON text.
    text = args if isinstance(args, str) else json.dumps(args)
    call_id = raw.get("id")
    return ToolCall(call_id if isinstance(call_id, str) else "", fn["name"], text)


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage(reported=False)
    prompt = raw.get("prompt_tokens_details")
    completion = raw.get("completion_tokens_details")
    return Usage(
        prompt_tokens=_int(raw.get("prompt_tokens")),
        completion_tokens=_int(raw.get("completion_tokens")),
        cached_tokens=_int(prompt.get("cached_tokens")) if isinstance(prompt, dict) else 0,
        reasoning_tokens=(_int(completion.get("reasoning_tokens"))
                          if isinstance(completion, dict) else 0),
    )


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class StreamAssembler:
    """Feed it the lines of an SSE stream; `body()` is the completion they add up to."""

    def __init__(self) -> None:
        self.done = False
        self._choices: dict[int, dict[str, Any]] = {}
        self._top: dict[str, Any] = {}

    def feed(self, line: str) -> None:
        if not line.startswith("data:"):
            return  # blank separators, comments (":"), event names, ids
        payload = line[5:].strip()
        if payload == "[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(payload)
        except ValueError:
            raise Malformed(f"stream event is not JSON: {payload[:100]!r}") from None
        if not isinstance(chunk, dict):
            raise Malformed("stream event is not a JSON object")
        if "error" in chunk:
            raise Malformed(f"stream carried an error: {str(chunk['error'])[:200]}")
        for key in ("model", "system_fingerprint", "usage", "timings"):
            if chunk.get(key) is not None:
                self._top[key] = chunk[key]
        for raw in chunk.get("choices") or []:
            if isinstance(raw, dict):
                self._delta(raw)

    def _delta(self, raw: dict[str, Any]) -> None:
        index = raw.get("index", 0)
        state = self._choices.setdefault(index, {"content": [], "calls": {}, "finish": None,
                                                 "refusal": []})
        delta = raw.get("delta") or {}
        if isinstance(delta.get("content"), str):
            state["content"].append(delta["content"])
        if isinstance(delta.get("refusal"), str):
            state["refusal"].append(delta["refusal"])
        for call in delta.get("tool_calls") or []:
            slot = state["calls"].setdefault(call.get("index", 0),
                                             {"id": "", "name": "", "args": []})
            slot["id"] = call.get("id") or slot["id"]
            fn = call.get("function") or {}
            slot["name"] += fn.get("name") or ""
            slot["args"].append(fn.get("arguments") or "")
        if raw.get("finish_reason"):
            state["finish"] = raw["finish_reason"]

    def body(self) -> dict[str, Any]:
        if not self.done and not all(s["finish"] for s in self._choices.values()):
            raise Malformed("stream ended before [DONE]")
        choices = []
        for index, s in sorted(self._choices.items()):
            message: dict[str, Any] = {"role": "assistant",
                                       "content": "".join(s["content"]) or None}
            if s["calls"]:
                message["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"], "arguments": "".join(c["args"])}}
                    for _, c in sorted(s["calls"].items())]
            if s["refusal"]:
                message["refusal"] = "".join(s["refusal"])
            choices.append({"index": index, "message": message, "finish_reason": s["finish"]})
        return {**self._top, "choices": choices}


__all__ = ["Malformed", "Parsed", "StreamAssembler", "parse_body"]
