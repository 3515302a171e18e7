"""Shared by the model tests: canned chat bodies and a fake OpenAI-compatible endpoint on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evaluator.model import Prices

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "fix it"}]


PRICES = Prices.from_mapping({"m-1": {"input_per_mtok": 2.0, "output_per_mtok": 8.0}})


OK_BODY = {
    "model": "m-1",
    "system_fingerprint": "fp_real",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "```bash\nls\n```"}}],
    "usage": {"prompt_tokens": 1000, "completion_tokens": 500},
}


TOOL_CALL = {"id": "call_1", "type": "function",
             "function": {"name": "bash", "arguments": '{"command": "ls"}'}}


TOOL_BODY = {
    "model": "m-1",
    "choices": [
        {"index": 0, "finish_reason": "tool_calls",
         "message": {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}},
        {"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": "done"}},
    ],
    "usage": {"prompt_tokens": 1000, "completion_tokens": 500,
              "prompt_tokens_details": {"cached_tokens": 600}},
}


def sse_events(cut: bool = False) -> bytes:
    """TOOL_BODY as OpenAI streams it: role, then pieces of content and arguments, then usage."""
    args = TOOL_CALL["function"]["arguments"]
    chunks = [
        {"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "bash", "arguments": args[:5]}}]}},
        {"index": 1, "delta": {"role": "assistant", "content": "do"}},
        {"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": args[5:]}}]}},
        {"index": 1, "delta": {"content": "ne"}, "finish_reason": "stop"},
        {"index": 0, "delta": {}, "finish_reason": "tool_calls"},
    ]
    events = [{"model": "m-1", "choices": [c], "usage": None} for c in chunks]
    events.append({"model": "m-1", "choices": [], "usage": TOOL_BODY["usage"]})
    if cut:
        events = events[:3]
    lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ([] if cut else ["data: [DONE]\n\n"])
    return b": keep-alive\n\n" + "".join(lines).encode()


# How servers refuse a conversation longer than the model's context window, each in its own words.
CONTEXT_REFUSALS = {
    "openai": {"error": {"message": "This model's maximum context length is 128000 tokens. "
                         "However, your messages resulted in 130512 tokens.",
                         "type": "invalid_request_error", "param": "messages",
                         "code": "context_length_exceeded"}},
    "vllm": {"object": "error", "message": "This model's maximum context length is 2048 tokens. "
             "However, you requested 2100 tokens (2052 in the messages, 48 in the completion). "
             "Please reduce the length of the messages or completion.",
             "type": "BadRequestError", "param": None, "code": 400},
    "llamacpp": {"error": {"code": 400, "message": "the request exceeds the available context "
                           "size, try increasing it", "type": "exceed_context_size_error",
                           "n_prompt_tokens": 2100, "n_ctx": 2048}},
}


class FakeEndpoint:
    """Actions: ok, tools, sse, ssecut, trickle (an SSE stream, an event every 0.1 s for 2 s),
    nousage, 429:<retry-after>, 500, 503, 400, 401 (echoes the auth header), malformed,
    nochoices, drop, slow, ctx:<openai|vllm|llamacpp> (a context-length refusal as that server
    words it). An empty queue answers ok."""

    def __init__(self, port: int = 0) -> None:
        self.actions: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self.hold_s = 0.0
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def script(self, *actions: str) -> None:
        self.actions.extend(actions)

    def next_action(self, headers: dict[str, str], body: bytes) -> str:
        with self._lock:
            self.requests.append({"headers": headers, "body": json.loads(body)})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            action = self.actions.popleft() if self.actions else "ok"
        time.sleep(self.hold_s)
        with self._lock:
            self.in_flight -= 1
        return action

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(fake: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            action = fake.next_action(dict(self.headers), body)
            if action == "drop":
                self.close_connection = True
                return
            if action == "slow":
                time.sleep(1.0)
            kind, _, arg = action.partition(":")
            if kind in ("ok", "slow"):
                self._send(200, json.dumps(OK_BODY).encode())
            elif kind == "tools":
                self._send(200, json.dumps(TOOL_BODY).encode())
            elif kind == "ctx":
                self._send(400, json.dumps(CONTEXT_REFUSALS[arg]).encode())
            elif kind == "trickle":
                self._trickle()
            elif kind in ("sse", "ssecut"):
                self._send(200, sse_events(cut=kind == "ssecut"), kind="text/event-stream")
            elif kind == "nousage":
                self._send(200, json.dumps({k: v for k, v in OK_BODY.items() if k != "usage"}).encode())
            elif kind == "malformed":
                self._send(200, b'{"choices": [{"mess')
            elif kind == "nochoices":
                self._send(200, b'{"error": null}')
            elif kind == "401":
                self._send(401, f"bad key {self.headers['Authorization']}".encode())
            else:
                self._send(int(kind), b'{"error": {"message": "nope"}}', arg)

        def _trickle(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for _ in range(20):
                    chunk = {"model": "m-1", "choices": [{"index": 0, "delta": {"content": "x"}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass  # the client hung up, as it should
            self.close_connection = True

        def _send(self, status: int, payload: bytes, retry_after: str = "",
                  kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            if retry_after:
                self.send_header("Retry-After", retry_after)
            self.end_headers()
            self.wfile.write(payload)

    return Handler
