"""The conversation of one attempt as the harness saw it pass: every model call's request and reply.

It is recorded on the harness's side of the meter, not from what the agent says, so it holds
exactly what the model was sent and what it answered. Messages are kept once each (a history
resent on every call costs nothing more), and each call names the messages it sent by index:
an agent that trims or rewrites its history is recorded as faithfully as one that appends.
The document's format is `FORMAT`; `evaluator/attempts/README.md` describes every field.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.hashing import canonical_json
from evaluator.model import Completion
from evaluator.store import Store

FORMAT = "evaluator-conversation/1"


def _plain(value: Any) -> Any:
    """JSON-able copy of a message or tool (mappings and sequences of the agent's own types)."""
    return json.loads(json.dumps(value, default=str))


def server_said(reply: Completion) -> dict[str, Any]:
    """What the server itself reported beside usage, when it did: its fingerprint and its own
    timings (llama.cpp's token counts and milliseconds for the prompt and the reply)."""
    out: dict[str, Any] = {}
    if reply.fingerprint is not None:
        out["fingerprint"] = reply.fingerprint
    if reply.timings is not None:
        out["timings"] = {k: round(v, 3) for k, v in reply.timings.items()}
    return out


class Conversation:
    """Grows with every call; `document()` is what the store keeps."""

    def __init__(self, key: str = "", store: Store | None = None) -> None:
        self.key, self._store = key, store
        self.messages: list[dict[str, Any]] = []
        self.tools: list[list[dict[str, Any]]] = []
        self.calls: list[dict[str, Any]] = []
        self._index: dict[bytes, int] = {}
        self._tool_index: dict[bytes, int] = {}

    def _message(self, message: Mapping[str, Any]) -> int:
        plain = _plain(message)
        raw = canonical_json(plain)
        if raw not in self._index:
            self._index[raw] = len(self.messages)
            self.messages.append(plain)
        return self._index[raw]

    def _tools(self, tools: Sequence[Mapping[str, Any]] | None) -> int | None:
        if not tools:
            return None
        plain = _plain(list(tools))
        raw = canonical_json(plain)
        if raw not in self._tool_index:
            self._tool_index[raw] = len(self.tools)
            self.tools.append(plain)
        return self._tool_index[raw]

    def add(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
            reply: Completion, request: Mapping[str, Any] | None = None) -> None:
        """One call that was answered: what was sent and every choice that came back."""
        sent = [self._message(m) for m in messages]
        choices = [self._message(c.message()) for c in reply.choices]
        u = reply.usage
        self.calls.append({
            "n": len(self.calls), "request": sent, "tools": self._tools(tools),
            "reply": choices[0], "choices": choices,
            "finish_reasons": [c.finish_reason for c in reply.choices],
            "params": dict(request or {}), "model": reply.model,
            "usage": {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                      "cached_tokens": u.cached_tokens, "reasoning_tokens": u.reasoning_tokens,
                      "reported": u.reported},
            "cost_usd": reply.cost_usd if reply.priced else None,
            "latency_s": round(reply.latency_s, 3), "queue_s": round(reply.queue_s, 3),
            **server_said(reply), "t": round(time.time(), 3)})
        if self._store is not None and self.key:
            # A live copy for watching a running attempt; the record's blob is the final word.
            self._store.write_derived(f"conversations/{self.key}.json", self.to_json())

    @property
    def thread(self) -> list[int]:
        """The history as the model last saw it, with its reply: the conversation to read."""
        if not self.calls:
            return []
        last = self.calls[-1]
        return [*last["request"], last["reply"]]

    def document(self) -> dict[str, Any]:
        return {"format": FORMAT, "key": self.key, "messages": self.messages,
                "tools": self.tools, "calls": self.calls, "thread": self.thread}

    def to_json(self) -> bytes:
        return canonical_json(self.document())


def thread_messages(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The messages of a stored conversation's thread, in order."""
    if document.get("format") != FORMAT:
        raise ValueError(f"not a conversation in format {FORMAT}: {str(document.get('format'))!r}")
    messages = document["messages"]
    return [messages[i] for i in document["thread"]]


__all__ = ["FORMAT", "Conversation", "thread_messages"]
