"""A chat.completion body streamed as OpenAI streams it: server-sent `chat.completion.chunk`s."""

from __future__ import annotations

import json
from typing import Any

_PIECES = 3  # content and arguments are cut into this many deltas, as a real stream cuts them


def _pieces(text: str) -> list[str]:
    size = max(1, -(-len(text) // _PIECES))
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def _deltas(choice: dict[str, Any]) -> list[dict[str, Any]]:
    message = choice["message"]
    out: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    out += [{"content": piece} for piece in _pieces(message.get("content") or "")]
    for i, call in enumerate(message.get("tool_calls") or []):
        args = _pieces(call["function"]["arguments"])
        out.append({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                    "function": {"name": call["function"]["name"],
                                                 "arguments": args[0]}}]})
        out += [{"tool_calls": [{"index": i, "function": {"arguments": a}}]} for a in args[1:]]
    return out


def stream_events(body: dict[str, Any], include_usage: bool) -> bytes:
    """The SSE payload for `body`: deltas per choice, a last chunk with each finish_reason, the
    usage chunk when asked for (`stream_options.include_usage`), then `[DONE]`."""
    head = {"id": body["id"], "object": "chat.completion.chunk", "created": body["created"],
            "model": body["model"], "system_fingerprint": body.get("system_fingerprint")}
    usage: dict[str, Any] = {"usage": None} if include_usage else {}
    chunks = []
    for choice in body["choices"]:
        for delta in _deltas(choice):
            chunks.append({**head, "choices": [{"index": choice["index"], "delta": delta,
                                                "finish_reason": None}], **usage})
        chunks.append({**head, "choices": [{"index": choice["index"], "delta": {},
                                            "finish_reason": choice["finish_reason"]}], **usage})
    if include_usage:
        chunks.append({**head, "choices": [], "usage": body["usage"]})
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    return "".join(lines).encode("utf-8")


__all__ = ["stream_events"]
