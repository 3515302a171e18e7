"""A bounded warm pool: sandboxes opened ahead for work that is queued on this node.

Work announces itself (`expect`) when it is queued; a filler thread opens up to `size` sandboxes
for the specs of announced work that has not started yet, never more than such work needs, so
the pool holds nothing for work that is not queued. Each warm sandbox is used once. One idle
longer than `max_idle_s` is closed, and so is one whose work went away. Warm sandboxes are
opened with `max_idle_s` more lifetime and their clock restarts at use, so work gets exactly
the deadline a fresh sandbox gives it.

Every warm sandbox holds a permit while it waits. A Ray node's pool is the node's only one, so
its permits are counted in the process; on one machine each `doit` worker process has a pool of
its own, and the permits are lock files shared by them all (`Permits`), so `size` bounds the
machine.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from evaluator.errors import EvalError
from evaluator.images import TASK_USER, TASK_WORKDIR
from evaluator.sandbox import (
    Backend,
    Images,
    Restartable,
    Sandbox,
    Sandboxes,
    SandboxLimits,
    open_backend,
)

Spec = tuple[str, SandboxLimits, str, str, str, str | None]  # image, limits, user, workdir,
# purpose, base commit (the seal)
Release = Callable[[], None]
# An announcement whose work never started (its driver died) stops counting after this long.
_EXPECT_TTL_S = 900.0


class Permits(Protocol):
    def try_take(self) -> Release | None:
        """A permit held until the returned release is called; None when none is free."""
        ...


class _Counted:
    def __init__(self, size: int) -> None:
        self._free = threading.BoundedSemaphore(max(size, 1))

    def try_take(self) -> Release | None:
        return self._free.release if self._free.acquire(blocking=False) else None


class WarmPool:
    """`Sandboxes` whose `open` hands out a warm sandbox for the spec when one is ready; the
    rest is the backend's it wraps (`sandboxes`, by default the one the settings name)."""

    def __init__(self, size: int, max_idle_s: float = 30.0, *, sandboxes: Sandboxes | None = None,
                 permits: Permits | None = None) -> None:
        self.sandboxes = sandboxes if sandboxes is not None else open_backend()
        self.size, self.max_idle_s = size, max_idle_s
        self._permits = permits or _Counted(size)
        self._lock = threading.Lock()
        self._expected: dict[str, tuple[Spec, float]] = {}  # ticket -> (spec, when)
        self._ready: list[tuple[Spec, Sandbox, float, Release]] = []
        self._wake = threading.Event()
        self._bound = threading.local()
        self.stats = Counter[str]()
        if size > 0:
            threading.Thread(target=self._fill_loop, name="warm-pool", daemon=True).start()

    def expect(self, ticket: str, image: str, limits: SandboxLimits, *, user: str,
               workdir: str, purpose: str, base_commit: str | None = None) -> None:
        with self._lock:
            self._expected[ticket] = ((image, limits, user, workdir, purpose, base_commit),
                                      time.monotonic())
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

    # --- the backend's, as it is ------------------------------------------------------------
    def backend(self) -> Backend:
        return self.sandboxes.backend()

    def alive(self) -> bool:
        return self.sandboxes.alive()

    def cleanup_leftovers(self) -> int:
        return self.sandboxes.cleanup_leftovers()

    @property
    def images(self) -> Images:
        return self.sandboxes.images

    def open(self, image: str, limits: SandboxLimits, *, user: str = TASK_USER,
             workdir: str = TASK_WORKDIR, purpose: str = "",
             base_commit: str | None = None) -> Sandbox:
        spec: Spec = (image, limits, user, workdir, purpose, base_commit)
        now = time.monotonic()
        with self._lock:
            found = next((i for i, (s, _, t, _) in enumerate(self._ready)
                          if s == spec and now - t < self.max_idle_s), None)
            taken = self._ready.pop(found) if found is not None else None
            # Atomically with the take, or the trimmer could close a sandbox meant for it.
            self._expected.pop(getattr(self._bound, "ticket", None) or "", None)
        if taken is not None:
            warm = taken[1]
            taken[3]()  # in use now: no longer a warm one
            try:
                if not isinstance(warm, Restartable):
                    raise ValueError("this backend's sandboxes cannot restart their clock")
                warm.restart_clock(limits)
                self.stats["warm"] += 1
                return warm
            except (EvalError, ValueError):
                warm.close()  # died or aged while waiting: a fresh one instead
        self.stats["cold"] += 1
        return self.sandboxes.open(image, limits, user=user, workdir=workdir, purpose=purpose,
                                   base_commit=base_commit)

    def close(self) -> None:
        with self._lock:
            ready, self._ready = self._ready, []
            self._expected.clear()
        for _, sb, _, release in ready:
            sb.close()
            release()

    # --- the filler -------------------------------------------------------------------------
    def _fill_loop(self) -> None:
        starved = False
        while True:
            # Out of permits: another process's warm sandbox may be used any moment, look soon.
            self._wake.wait(timeout=1.0 if starved else min(self.max_idle_s / 2, 5.0))
            self._wake.clear()
            self._trim()
            spec = self._wanted()
            if spec is None:
                continue
            release = self._permits.try_take()
            starved = release is None
            if release is None:
                continue
            image, limits, user, workdir, purpose, base_commit = spec
            longer = dataclasses.replace(limits,
                                         sandbox_timeout_s=limits.sandbox_timeout_s + self.max_idle_s)
            try:
                sb = self.sandboxes.open(image, longer, user=user, workdir=workdir,
                                         purpose=purpose, base_commit=base_commit)
            except EvalError:
                release()
                self.stats["fill_failed"] += 1
                continue  # the work opens its own and reports the cause
            with self._lock:
                self._ready.append((spec, sb, time.monotonic(), release))
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
            need.subtract(s for s, _, _, _ in self._ready)
            return next((s for s, n in need.items() if n > 0), None)

    def _trim(self) -> None:
        """Close warm sandboxes idle too long or no longer needed by queued work."""
        now = time.monotonic()
        with self._lock:
            need = Counter(s for s, _ in self._expected.values())
            keep, drop = [], []
            for entry in self._ready:
                spec, _, t, _ = entry
                if now - t < self.max_idle_s and need[spec] > 0:
                    need[spec] -= 1
                    keep.append(entry)
                else:
                    drop.append(entry)
            self._ready = keep
        for _, sb, _, release in drop:
            self.stats["dropped"] += 1
            sb.close()
            release()
