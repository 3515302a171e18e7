"""A body over the limit is refused before it is read: by its Content-Length, or as it arrives
chunked; one within the limit, chunked or not, is served as before (real server, raw sockets)."""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from tests.api.support import Api

LIMIT = 4096
GOOD = {"agent_version": "base", "task_set": "mini", "samples": 1}


def _connect(api: Api) -> socket.socket:
    url = urlsplit(api.url)
    return socket.create_connection((url.hostname, url.port), timeout=10)


def _head(headers: str) -> bytes:
    return f"POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{headers}\r\n".encode()


def _answer(sock: socket.socket) -> tuple[int, dict[str, object]]:
    data = b""
    while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < int(
            data.lower().partition(b"content-length: ")[2].partition(b"\r\n")[0] or 0):
        got = sock.recv(65536)
        if not got:
            break
        data += got
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_a_declared_length_over_the_limit_is_refused_before_any_byte_is_sent(
        serve: Callable[..., Api]) -> None:
    api = serve(supervise=False, max_body=LIMIT)
    with _connect(api) as sock:
        sock.sendall(_head("Content-Length: 20000000\r\n"))  # headers only: no body follows
        status, body = _answer(sock)
    assert status == 413 and "20000000" in str(body["detail"]) and "EVAL_API_MAX_BODY" in str(
        body["detail"])


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(serve: Callable[..., Api]) -> None:
    api = serve(supervise=False, max_body=LIMIT)
    chunk = b" " * 1024
    sent = 0
    with _connect(api) as sock:
        sock.sendall(_head("Transfer-Encoding: chunked\r\n"))
        while sent < 20_000_000:
            if select.select([sock], [], [], 0)[0]:
                break  # the server answered: it read no further
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(chunk)
            select.select([sock], [], [], 0.002)
        status, body = _answer(sock)
    assert status == 413 and "more than 4096" in str(body["detail"])
    assert sent < 20 * LIMIT  # some chunks in flight, nowhere near the 20 MB


def test_bodies_within_the_limit_are_served_chunked_or_not(serve: Callable[..., Api]) -> None:
    api = serve(supervise=False, max_body=LIMIT)
    payload = json.dumps(GOOD).encode()
    with _connect(api) as sock:
        half = len(payload) // 2
        sock.sendall(_head("Transfer-Encoding: chunked\r\n") + b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n"
                     % (half, payload[:half], len(payload) - half, payload[half:]))
        status, chunked = _answer(sock)
    assert status == 202, chunked
    with api.client() as c:
        plain = c.post("/v1/runs", json=GOOD)
    assert plain.status_code == 202 and plain.json()["id"] == chunked["id"]


def test_the_token_is_checked_before_the_length(serve: Callable[..., Api]) -> None:
    api = serve(supervise=False, max_body=LIMIT, token="t0ken")
    with _connect(api) as sock:
        sock.sendall(_head("Content-Length: 20000000\r\n"))
        status, _ = _answer(sock)
    assert status == 401  # a stranger learns nothing more from a big body than from a small one
