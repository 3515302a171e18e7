"""Clocks used by the cache to decide when entries expire.

The cache never calls :func:`time.monotonic` directly; it asks a clock object
for the current time.  Production code uses :class:`SystemClock`, tests use
:class:`ManualClock` and move time forward explicitly.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Anything with a ``now()`` method returning seconds as a float."""

    def now(self) -> float:  # pragma: no cover - protocol
        ...


class SystemClock:
    """Monotonic wall clock backed by :func:`time.monotonic`."""

    def now(self) -> float:
        return time.monotonic()


class ManualClock:
    """A clock that only moves when told to.

    >>> clock = ManualClock()
    >>> clock.now()
    0.0
    >>> clock.advance(5)
    >>> clock.now()
    5.0
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._now += seconds
