"""A bounded warm pool: sandboxes opened ahead for work that is queued on this node.

Work announces itself (`expect`) when it is queued; a filler thread opens up to `size` sandboxes
for the specs of announced work that has not started yet, never more than such work needs, so
the pool holds nothing for work that is not queued. Each warm sandbox is used once. One idle
longer than `max_idle_s` is closed, and so is one whose work went away. Warm sandboxes are
opened with `max_idle_s` more lifetime and their clock restarts at use, so work gets exactly
the deadline a fresh sandbox gives it.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import Counter
from typing import Any

from evaluator.errors import EvalError
from evaluator.sandbox import DockerSandbox, DockerSandboxes, SandboxLimits

Spec = tuple[str, SandboxLimits, str, str, str]  # image, limits, user, workdir, purpose
# An announcement whose work never started (its driver died) stops counting after this long.
_EXPECT_TTL_S = 900.0


class WarmPool(DockerSandboxes):
    """DockerSandboxes whose `open` hands out a warm sandbox for the spec when one is ready."""

    def __init__(self, size: int, max_idle_s: float = 30.0, client: Any = None) -> None:
        super().__init__(client)
        self.size, self.max_idle_s = size, max_idle_s
        self._lock = threading.Lock()
        self._expected: dict[str, tuple[Spec, float]] = {}  # ticket -> (spec, when)
        self._ready: list[tuple[Spec, DockerSandbox, float]] = []
        self._wake = threading.Event()
        self._bound = threading.local()
        self.stats = Counter[str]()
        if size > 0:
            threading.Thread(target=self._fill_loop, name="warm-pool", daemon=True).start()

    def expect(self, ticket: str, image: str, limits: SandboxLimits, *, user: str,
               workdir: str, purpose: str) -> None:
        with self._lock:
            self._expected[ticket] = ((image, limits, user, workdir, purpose), time.monotonic())
        self._wake.set()

    def forget(self, ticket: str) -> None:
        """The ticket's work started, failed or was withdrawn: it needs no warm sandbox."""
        with self._lock:
            self._expected.pop(ticket, None)
        self._wake.set()

    def bind(self, ticket: str | None) -> None:
        """The work of `ticket` runs in this thread: its first open takes its announcement."""
        self._bound.ticket = ticket

    def ready(self) -> int:
        with self._lock:
            return len(self._ready)

    def open(self, image: str, limits: SandboxLimits, *, user: str = "1000:1000",
             workdir: str = "/testbed", purpose: str = "") -> DockerSandbox:
        spec: Spec = (image, limits, user, workdir, purpose)
        now = time.monotonic()
        with self._lock:
            found = next((i for i, (s, _, t) in enumerate(self._ready)
                          if s == spec and now - t < self.max_idle_s), None)
            warm = self._ready.pop(found)[1] if found is not None else None
            # Atomically with the take, or the trimmer could close a sandbox meant for it.
            self._expected.pop(getattr(self._bound, "ticket", None) or "", None)
        if warm is not None:
            try:
                warm.restart_clock(limits)
                self.stats["warm"] += 1
                return warm
            except (EvalError, ValueError):
                warm.close()  # died or aged while waiting: a fresh one instead
        self.stats["cold"] += 1
        return super().open(image, limits, user=user, workdir=workdir, purpose=purpose)

    def close(self) -> None:
        with self._lock:
            ready, self._ready = self._ready, []
            self._expected.clear()
        for _, sb, _ in ready:
            sb.close()

    # --- the filler -------------------------------------------------------------------------
    def _fill_loop(self) -> None:
        while True:
            self._wake.wait(timeout=min(self.max_idle_s / 2, 5.0))
            self._wake.clear()
            self._trim()
            spec = self._wanted()
            if spec is None:
                continue
            image, limits, user, workdir, purpose = spec
            longer = dataclasses.replace(limits,
                                         sandbox_timeout_s=limits.sandbox_timeout_s + self.max_idle_s)
            try:
                sb = super().open(image, longer, user=user, workdir=workdir, purpose=purpose)
            except EvalError:
                self.stats["fill_failed"] += 1
                continue  # the work opens its own and reports the cause
            with self._lock:
                self._ready.append((spec, sb, time.monotonic()))
            self.stats["filled"] += 1
            self._wake.set()  # maybe more to fill

    def _wanted(self) -> Spec | None:
        """A spec with more queued work than warm sandboxes, while the pool has room."""
        now = time.monotonic()
        with self._lock:
            for t in [t for t, (_, when) in self._expected.items() if now - when > _EXPECT_TTL_S]:
                del self._expected[t]
            if len(self._ready) >= self.size:
                return None
            need = Counter(s for s, _ in self._expected.values())
            need.subtract(s for s, _, _ in self._ready)
            return next((s for s, n in need.items() if n > 0), None)

    def _trim(self) -> None:
        """Close warm sandboxes idle too long or no longer needed by queued work."""
        now = time.monotonic()
        with self._lock:
            need = Counter(s for s, _ in self._expected.values())
            keep, drop = [], []
            for spec, sb, t in self._ready:
                if now - t < self.max_idle_s and need[spec] > 0:
                    need[spec] -= 1
                    keep.append((spec, sb, t))
                else:
                    drop.append(sb)
            self._ready = keep
        for sb in drop:
            self.stats["dropped"] += 1
            sb.close()
