"""What one exec gives back, whatever ran it: its output kept within a bound (head and tail), its
exit code, and whether it ran past its deadline."""

from __future__ import annotations

from dataclasses import dataclass

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
