"""The local executor: this machine's sandboxes (its backend's), bounds shared by flock."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol

from evaluator.attempts import AttemptRun, run_attempt
from evaluator.executor._pool import WarmPool
from evaluator.executor._protocol import AttemptWork, ModelSpec, WorkLost
from evaluator.grading import DockerGrader, GradeOutcome, GradeSpec
from evaluator.sandbox import Sandboxes, SandboxLimits
from evaluator.store import Store


class Slot(Protocol):
    def __call__(self, on_wait: Callable[[], None] | None = None
                 ) -> AbstractContextManager[Any]:
        """Hold one sandbox slot; `on_wait` is called once if the caller has to wait for it."""
        ...


class LocalExecutor:
    """Sandbox work on this machine. `slot` holds one of the machine's sandbox slots while a
    sandbox is open; `model_limiter(spec)` is the bound on requests in flight to spec's endpoint
    (both injected by the pipeline, which owns the store's lock files). With a warm `pool`, work
    that has to wait for a slot is announced to it, so its sandbox may be open by the time the
    slot is free; work that gets a slot at once opens its own, as without a pool."""

    name = "local"
    tries = 1

    def __init__(self, sandboxes: Sandboxes, slot: Slot,
                 model_limiter: Callable[[ModelSpec], Callable[[], AbstractContextManager[Any]]],
                 pool: WarmPool | None = None) -> None:
        self._sandboxes = sandboxes
        self._slot = slot
        self._model_limiter = model_limiter
        self._pool = pool

    def run_attempt(self, work: AttemptWork, store: Store,
                    on_start: Callable[[], None] = lambda: None) -> AttemptRun:
        with self.slot(work.image, work.limits, work.task.spec.user, work.task.spec.workdir,
                       "attempt", work.pin.base_commit) as sandboxes:
            on_start()
            return run_attempt(
                store=store, sandboxes=sandboxes,
                model=work.model.client(self._model_limiter(work.model)), agent=work.agent,
                task=work.task, pin=work.pin, limits=work.limits, key=work.key, seed=work.seed,
                sandbox_usd_per_hour=work.sandbox_usd_per_hour,
                price=work.model.price)

    @contextlib.contextmanager
    def slot(self, image: str, limits: SandboxLimits, user: str, workdir: str,
             purpose: str, base_commit: str | None = None) -> Iterator[Sandboxes]:
        """Hold a sandbox slot for work of this spec; yields the sandboxes to open it from."""
        pool = self._pool
        if pool is None:
            with self._slot():
                yield self._sandboxes
            return
        ticket = uuid.uuid4().hex

        def waiting() -> None:
            pool.expect(ticket, image, limits, user=user, workdir=workdir, purpose=purpose,
                        base_commit=base_commit)

        try:
            with self._slot(waiting):
                pool.bind(ticket)
                yield pool
        finally:
            pool.bind(None)
            pool.forget(ticket)

    def grader(self, on_lost: Callable[[WorkLost], None] = lambda _: None) -> _SlotGrader:
        return _SlotGrader(self)  # this machine's work is never lost to another node


class _SlotGrader:
    def __init__(self, executor: LocalExecutor) -> None:
        self._ex = executor

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        with self._ex.slot(spec.image, spec.limits, spec.user, spec.workdir,
                           "grade", spec.base_commit) as sandboxes:
            return DockerGrader(sandboxes).grade(spec, patch, hidden)
