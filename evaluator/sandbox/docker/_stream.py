"""One `docker exec`, read with a host-side deadline and bounded memory.

The in-container `timeout` is the normal way a command ends; the deadline here is the backstop
for when it cannot act (a wedged daemon, an image without coreutils), so the harness never hangs.
"""

from __future__ import annotations

import select
import socket
import ssl
import struct
import time
from collections.abc import Iterable
from typing import Any

from evaluator.sandbox._stream import Capture, RawExec

_HEADER = struct.Struct(">BxxxL")
_STDERR = 2


def run_exec(
    api: Any,
    container_id: str,
    argv: list[str],
    *,
    deadline: float,
    limit: int,
    user: str = "",
    workdir: str | None = None,
    env: dict[str, str] | None = None,
    stdin: Iterable[bytes] | None = None,
) -> RawExec:
    """Run `argv` in the container until it ends or `deadline` (time.monotonic) passes."""
    started = time.monotonic()
    exec_id = api.exec_create(
        container_id,
        argv,
        stdout=True,
        stderr=True,
        stdin=stdin is not None,
        tty=False,
        user=user,
        workdir=workdir,
        environment=[f"{k}={v}" for k, v in (env or {}).items()] or None,
    )["Id"]
    sock = api.exec_start(exec_id, socket=True)
    raw: socket.socket = getattr(sock, "_sock", sock)
    out, err = Capture(limit), Capture(limit)
    try:
        if stdin is not None:
            _send(raw, stdin, deadline)
        raw.setblocking(False)
        overran = not _read_frames(raw, _read_ahead(sock), out, err, deadline)
    finally:
        _close(sock, raw)
    exit_code = _exit_code(api, exec_id, wait_s=0.0 if overran else 5.0)
    return RawExec(exit_code, out, err, overran, time.monotonic() - started)


def _send(raw: socket.socket, chunks: Iterable[bytes], deadline: float) -> None:
    for chunk in chunks:
        raw.settimeout(max(deadline - time.monotonic(), 0.001))
        raw.sendall(chunk)
    raw.settimeout(None)
    # Half-closing is how the process sees end of input.
    raw.shutdown(socket.SHUT_WR)


def _read_ahead(sock: Any) -> bytes:
    """The stream's first bytes, where the engine's reply parser already read them.

    The reply's headers are parsed through a buffered reader over the socket (http.client's),
    which reads what is there, not only the headers; docker-py then hands out the socket under
    it. When the harness reads the reply late (a loaded machine) and the command is quick (a
    `head` of a results file), the command's whole output already sits in that buffer, and
    reading the socket alone gives nothing, with exit code 0: a file read back empty.
    Needs the socket non-blocking: with nothing buffered, `read1` then waits for nothing."""
    response = getattr(sock, "_response", None)
    reader = getattr(getattr(getattr(response, "raw", None), "_fp", None), "fp", None)
    read1 = getattr(reader, "read1", None)
    if read1 is None:
        return b""
    try:
        return bytes(read1(1 << 16) or b"")
    except (BlockingIOError, InterruptedError, ssl.SSLWantReadError, ValueError):
        return b""


def _read_frames(raw: socket.socket, first: bytes, out: Capture, err: Capture,
                 deadline: float) -> bool:
    """Demultiplex docker's framed stream (from `first`, what was read ahead) into the
    captures; False if the deadline passed. `raw` must be non-blocking."""
    pending = bytearray(first)
    _feed(pending, out, err)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        has_buffered = getattr(raw, "pending", lambda: 0)() > 0
        if not has_buffered and not select.select([raw], [], [], min(remaining, 1.0))[0]:
            continue
        try:
            data = raw.recv(1 << 16)
        except (BlockingIOError, InterruptedError, ssl.SSLWantReadError):
            continue
        except OSError:
            return True
        if not data:
            return True
        pending += data
        _feed(pending, out, err)


def _feed(pending: bytearray, out: Capture, err: Capture) -> None:
    """Move every whole frame of `pending` into its capture."""
    while len(pending) >= _HEADER.size:
        stream, size = _HEADER.unpack_from(pending)
        if len(pending) < _HEADER.size + size:
            return
        payload = bytes(pending[_HEADER.size : _HEADER.size + size])
        del pending[: _HEADER.size + size]
        (err if stream == _STDERR else out).feed(payload)


def _close(sock: Any, raw: socket.socket) -> None:
    for thing in (sock, raw):
        try:
            thing.close()
        except OSError:
            pass


def _exit_code(api: Any, exec_id: str, wait_s: float) -> int | None:
    # The stream can end a moment before the daemon records the exit code.
    until = time.monotonic() + wait_s
    while True:
        info = api.exec_inspect(exec_id)
        if not info.get("Running") and info.get("ExitCode") is not None:
            return int(info["ExitCode"])
        if time.monotonic() >= until:
            return None
        time.sleep(0.02)
