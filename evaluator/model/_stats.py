"""Counters for progress reporting: how many requests, how many retried, and why."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ClientStats:
    """A snapshot. `requests` counts HTTP attempts; `by_cause` counts failed attempts by cause
    (connect_error, disconnect, timeout, rate_limited, server_error, malformed_body)."""

    requests: int = 0
    retries: int = 0
    completions: int = 0
    failures: int = 0
    by_cause: dict[str, int] = field(default_factory=dict)


class StatsCounter:
    """Thread-safe counters behind `ClientStats`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests = 0
        self._retries = 0
        self._completions = 0
        self._failures = 0
        self._causes: Counter[str] = Counter()

    def request(self) -> None:
        with self._lock:
            self._requests += 1

    def retry(self) -> None:
        with self._lock:
            self._retries += 1

    def completion(self) -> None:
        with self._lock:
            self._completions += 1

    def failure(self) -> None:
        with self._lock:
            self._failures += 1

    def cause(self, name: str) -> None:
        with self._lock:
            self._causes[name] += 1

    def snapshot(self) -> ClientStats:
        with self._lock:
            return ClientStats(
                self._requests,
                self._retries,
                self._completions,
                self._failures,
                dict(self._causes),
            )


__all__ = ["ClientStats", "StatsCounter"]
