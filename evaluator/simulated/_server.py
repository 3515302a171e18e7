"""The simulated OpenAI-compatible HTTP endpoint, on loopback, labelled simulated everywhere."""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ._chat import RequestError, answer, parse_request
from ._config import SimConfig
from ._sse import stream_events
from ._tasks import TaskIndex

# One label for the fingerprint, owned_by and the Server header. It equals
# evaluator.model.SIMULATED_FINGERPRINT; a test checks they agree (importing it here would make
# path-based mypy runs see evaluator.model under two names, as evaluator/ has no __init__.py).
FINGERPRINT = "evaluator-simulated"

_log = logging.getLogger("evaluator.simulated")


class SimulatedServer(ThreadingHTTPServer):
    """Holds the config, the tasks and the fault generator shared by all request threads."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], config: SimConfig, tasks: TaskIndex) -> None:
        self.config = config
        self.tasks = tasks
        # Seeded per process, not per request: a retried request draws anew and can succeed.
        self._fault_rng = random.Random(config.faults.seed)
        self._fault_lock = threading.Lock()
        super().__init__(address, _Handler)

    def draw_fault(self) -> str | None:
        f = self.config.faults
        with self._fault_lock:
            u = self._fault_rng.random()
        for name, rate in (
            ("429", f.rate_429),
            ("500", f.rate_500),
            ("malformed", f.rate_malformed),
            ("drop", f.rate_drop),
        ):
            if u < rate:
                return name
            u -= rate
        return None

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/v1"


def make_server(
    config: SimConfig, tasks: TaskIndex, host: str = "127.0.0.1", port: int = 0
) -> SimulatedServer:
    return SimulatedServer((host, port), config, tasks)


class _Handler(BaseHTTPRequestHandler):
    server: SimulatedServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without this, delayed ACKs add 40 ms each.
    disable_nagle_algorithm = True

    def version_string(self) -> str:
        return FINGERPRINT

    def log_message(self, format: str, *args: Any) -> None:
        _log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        models = sorted(self.server.config.models)
        if path == "/v1/models":
            self._json(200, {"object": "list", "data": [_model_card(m) for m in models]})
        elif path.startswith("/v1/models/") and path[len("/v1/models/") :] in models:
            self._json(200, _model_card(path[len("/v1/models/") :]))
        else:
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")
            return
        faults = self.server.config.faults
        if faults.latency_ms:
            time.sleep(faults.latency_ms / 1000)
        fault = self.server.draw_fault()
        if fault == "drop":
            self.close_connection = True  # nothing written: the client sees the socket close
        elif fault == "429":
            retry_after = faults.retry_after_s
            value = str(int(retry_after)) if retry_after.is_integer() else f"{retry_after:g}"
            self._error(
                429,
                "simulated rate limit",
                "rate_limit_error",
                "rate_limit_exceeded",
                {"Retry-After": value},
            )
        elif fault == "500":
            self._error(500, "simulated internal error", "server_error", None)
        elif fault == "malformed":
            self._send(200, b'{"id": "chatcmpl-sim", "object": "chat.completion", "choices": [{"')
        else:
            self._complete(raw)

    def _complete(self, raw: bytes) -> None:
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            self._error(400, "request body is not valid JSON", "invalid_request_error", None)
            return
        try:
            request = parse_request(data)
        except RequestError as e:
            self._error(400, str(e), "invalid_request_error", e.code, param=e.param)
            return
        spec = self.server.config.models.get(request.model)
        if spec is None:
            self._error(
                404,
                f"The model '{request.model}' does not exist",
                "invalid_request_error",
                "model_not_found",
                param="model",
            )
            return
        # Everything is a function of the request, so replays are byte-identical.
        body = {**answer(request, spec.solve_rate, self.server.tasks),
                "system_fingerprint": FINGERPRINT}
        if request.stream:
            self._send(200, stream_events(body, request.include_usage), kind="text/event-stream")
        else:
            self._json(200, body)

    def _error(
        self,
        status: int,
        message: str,
        kind: str,
        code: str | None,
        headers: dict[str, str] | None = None,
        param: str | None = None,
    ) -> None:
        body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
        self._json(status, body, headers)

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(body).encode("utf-8"), headers)

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None,
              kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def _model_card(model: str) -> dict[str, Any]:
    return {"id": model, "object": "model", "created": 0, "owned_by": FINGERPRINT}


__all__ = ["FINGERPRINT", "SimulatedServer", "make_server"]
