"""The Docker-API exec stream, against a real HTTP server on a unix socket that answers as an
engine does: the reply's headers and the command's output may come in one read."""

from __future__ import annotations

import json
import socketserver
import struct
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import docker
import pytest

from evaluator.sandbox.docker._stream import run_exec

_UPGRADED = (b"HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
             b"Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n")


def _frame(stream: int, data: bytes) -> bytes:
    return struct.pack(">BxxxL", stream, len(data)) + data


class _Engine(BaseHTTPRequestHandler):
    """exec create, start (its whole output written with the headers, as a quick command's is
    when the harness reads late; then what the client sends, until it half-closes), inspect."""

    protocol_version = "HTTP/1.1"
    output = _frame(1, b'{"id": "t", "status": "passed"}\n') + _frame(2, b"err\n")

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or "{}")
        if self.path.endswith("/exec"):
            self._json(201, {"Id": "e1" if not body.get("AttachStdin") else "e1-stdin"})
        else:  # /exec/e1/start: one write, then the stream ends (after the client's input)
            self.wfile.write(_UPGRADED + self.output)
            if "stdin" in self.path:
                self.rfile.read()
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802
        self._json(200, {"Running": False, "ExitCode": 0})

    def _json(self, code: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[docker.APIClient]:
    path = str(tmp_path / "engine.sock")
    server = socketserver.ThreadingUnixStreamServer(path, _Engine)
    server.daemon_threads, server.block_on_close = True, False  # the client keeps connections
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield docker.APIClient(base_url=f"unix://{path}", version="1.41")
    finally:
        server.shutdown()
        server.server_close()


def test_output_read_with_the_replys_headers_is_kept(engine: docker.APIClient) -> None:
    r = run_exec(engine, "c1", ["head", "-c", "100", "/tmp/results"],
                 deadline=time.monotonic() + 10, limit=10_000)
    assert r.stdout.value() == b'{"id": "t", "status": "passed"}\n'
    assert (r.stderr.value(), r.exit_code, r.overran) == (b"err\n", 0, False)


def test_output_sent_with_stdin_is_kept(engine: docker.APIClient) -> None:
    r = run_exec(engine, "c1", ["tar", "-x"], deadline=time.monotonic() + 10, limit=10_000,
                 stdin=[b"data"])
    assert r.stdout.value() == b'{"id": "t", "status": "passed"}\n' and r.exit_code == 0
