"""Clocks: where the retry loop gets the time from and how it sleeps.

:class:`RetryingClient` never calls :func:`time.sleep` itself; it calls the
``sleep`` method of its clock.  Tests use :class:`FakeClock`, which records the
requested sleeps and advances its notion of time instantly.
"""

from __future__ import annotations

import time
from typing import List


class SystemClock:
    """The real clock."""

    def time(self) -> float:
        """Wall-clock time as a UNIX timestamp (used for HTTP dates)."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock for tests: ``sleep`` returns immediately but moves time forward.

    >>> clock = FakeClock(start=1000.0)
    >>> clock.sleep(2.5)
    >>> clock.time(), clock.sleeps
    (1002.5, [2.5])
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = float(start)
        self.sleeps: List[float] = []

    def time(self) -> float:
        return self._now

    def sleep(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("cannot sleep a negative amount of time")
        self.sleeps.append(seconds)
        self._now += seconds

    @property
    def total_slept(self) -> float:
        return sum(self.sleeps)
