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
from dataclasses import dataclass
from typing import Any

_HEADER = struct.Struct(">BxxxL")
_STDERR = 2
_MARKER = b"\n[... %d bytes of output omitted ...]\n"
_MARKER_ROOM = 64


class Capture:
    """Keeps at most `limit` bytes of a stream: all of it if it fits, else its head and tail."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        room = max(limit - _MARKER_ROOM, 0)
        self._head_cap = room // 2 if room else limit
        self._tail_cap = room - room // 2 if room else 0
        self._buf = bytearray()
        self._tail = bytearray()
        self.total = 0
        self.truncated = False

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        if not self.truncated:
            self._buf += data
            if len(self._buf) > self.limit:
                self.truncated = True
                rest = self._buf[self._head_cap :]
                self._tail = rest[-self._tail_cap :] if self._tail_cap else bytearray()
                del self._buf[self._head_cap :]
            return
        if self._tail_cap:
            self._tail += data
            # Trimming only once the tail doubles keeps this linear in the bytes streamed.
            if len(self._tail) > 2 * self._tail_cap:
                del self._tail[: -self._tail_cap]

    def value(self) -> bytes:
        if not self.truncated:
            return bytes(self._buf)
        tail = bytes(self._tail[-self._tail_cap :]) if self._tail_cap else b""
        omitted = self.total - len(self._buf) - len(tail)
        return bytes(self._buf) + _MARKER % omitted + tail


@dataclass
class RawExec:
    exit_code: int | None  # None: the process was still running when the deadline passed
    stdout: Capture
    stderr: Capture
    overran: bool
    duration_s: float


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
        overran = not _read_frames(raw, out, err, deadline)
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


def _read_frames(raw: socket.socket, out: Capture, err: Capture, deadline: float) -> bool:
    """Demultiplex docker's framed stream into the captures; False if the deadline passed."""
    pending = bytearray()
    raw.setblocking(False)
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
        while len(pending) >= _HEADER.size:
            stream, size = _HEADER.unpack_from(pending)
            if len(pending) < _HEADER.size + size:
                break
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
