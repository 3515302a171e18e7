"""A process-wide bound on requests in flight per endpoint.

Every client of one endpoint in a process shares one semaphore, so starting more agents in threads
never multiplies the load an endpoint sees. A cross-process limiter can be injected instead.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

_log = logging.getLogger("evaluator.model")

Limiter = Callable[[], AbstractContextManager[Any]]

_lock = threading.Lock()
_semaphores: dict[str, tuple[int, threading.BoundedSemaphore]] = {}


def endpoint_limiter(base_url: str, max_in_flight: int) -> Limiter:
    """The shared limiter for `base_url`; the first client to name an endpoint sets its bound."""
    if max_in_flight < 1:
        raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
    key = base_url.rstrip("/")
    with _lock:
        entry = _semaphores.get(key)
        if entry is None:
            entry = (max_in_flight, threading.BoundedSemaphore(max_in_flight))
            _semaphores[key] = entry
    bound, semaphore = entry
    if bound != max_in_flight:
        # A semaphore cannot be resized while others hold it; keep the first bound and say so.
        _log.warning(
            "endpoint %s already limited to %d requests in flight; ignoring %d",
            key,
            bound,
            max_in_flight,
        )

    def limiter() -> AbstractContextManager[Any]:
        return semaphore

    return limiter


__all__ = ["Limiter", "endpoint_limiter"]
