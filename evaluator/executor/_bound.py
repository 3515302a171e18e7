"""The model tier's bound for a whole cluster: one semaphore actor per endpoint.

Every node's model clients take a permit from the same actor before each request, so the
endpoint sees at most `limit` requests in flight from the cluster, however many nodes and
processes run attempts. A permit whose holder's node died is taken back at once; one held past
its lease (a holder killed without releasing it) is taken back then.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

# Ray is an optional extra (`make venv-ray`): each `import ray` sits in the function that needs
# it, so the local executor never loads it.

_CHECK_NODES_S = 1.0


class ClusterBound:
    """A counting semaphore held in one (async) Ray actor; `peak` is the most ever held."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a model bound must be at least 1, got {limit}")
        self.limit = limit
        self.peak = 0
        self.reclaimed = 0
        self._held: dict[str, tuple[str, float]] = {}  # token -> (node id, lease deadline)
        self._changed: asyncio.Condition | None = None
        self._nodes_checked = 0.0

    async def acquire(self, token: str, node_id: str, lease_s: float) -> int:
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            while len(self._held) >= self.limit:
                self._reclaim()
                if len(self._held) < self.limit:
                    break
                try:
                    await asyncio.wait_for(self._changed.wait(), timeout=_CHECK_NODES_S)
                except TimeoutError:
                    pass
            self._held[token] = (node_id, time.monotonic() + lease_s)
            self.peak = max(self.peak, len(self._held))
            return len(self._held)

    async def release(self, token: str) -> None:
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            self._held.pop(token, None)
            self._changed.notify()

    def stats(self) -> dict[str, int]:
        return {"limit": self.limit, "held": len(self._held), "peak": self.peak,
                "reclaimed": self.reclaimed}

    def _reclaim(self) -> None:
        now = time.monotonic()
        dead: set[str] = set()
        if now - self._nodes_checked > _CHECK_NODES_S:
            import ray

            self._nodes_checked = now
            dead = {n["NodeID"] for n in ray.nodes() if not n["Alive"]}
        for token, (node, lease) in list(self._held.items()):
            if node in dead or now > lease:
                del self._held[token]
                self.reclaimed += 1


def cluster_limiter(bound: Any, node_id: str, lease_s: float) -> Any:
    """A model-client limiter that takes each request's permit from the `bound` actor."""
    import ray

    @contextmanager
    def permit() -> Iterator[None]:
        token = uuid.uuid4().hex
        ray.get(bound.acquire.remote(token, node_id, lease_s))
        try:
            yield
        finally:
            bound.release.remote(token)

    def limiter() -> AbstractContextManager[None]:
        return permit()

    return limiter
