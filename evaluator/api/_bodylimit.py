"""Request bodies over a size are refused before they are read.

FastAPI reads a body in full before anything can look at it, so a 20 MB post is held in memory
and only then refused. This layer, outermost, answers 413 from the headers when Content-Length
says too much, and for a chunked body (no Content-Length) stops reading as soon as what arrived
passes the limit; a body within it is handed on unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimit:
    """ASGI middleware: 413 for a request body over `limit` bytes, 400 for a bad length."""

    def __init__(self, app: App, limit: int, setting: str = "EVAL_API_MAX_BODY") -> None:
        self.app, self.limit, self.setting = app, limit, setting

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        length = headers.get(b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                await _refuse(send, 400, f"Content-Length {length.decode(errors='replace')!r} "
                                         "is not a number of bytes")
            elif int(length) > self.limit:
                await _refuse(send, 413, self._said(f"Content-Length says {int(length)}"))
            else:
                await self.app(scope, receive, send)  # the server reads no more than it says
            return
        if b"chunked" not in headers.get(b"transfer-encoding", b"").lower():
            await self.app(scope, receive, send)  # no body
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                await _refuse(send, 413, self._said(f"more than {self.limit} arrived"))
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    def _said(self, what: str) -> str:
        return (f"request body too large: {what} bytes, the limit is {self.limit} "
                f"({self.setting}); a run request is a small JSON object such as "
                '{"agent_version": "name", "task_set": "demo", "samples": 1}')


def _replay(body: bytes, receive: Receive) -> Receive:
    given = False

    async def replayed() -> Message:
        nonlocal given
        if given:
            return await receive()  # what follows the body: a disconnect
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


async def _refuse(send: Send, status: int, detail: str) -> None:
    # The unread rest of the body makes the connection unusable: it is closed after the answer.
    payload = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(payload)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": payload})
