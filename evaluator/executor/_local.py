"""The local executor: today's behaviour, this machine's Docker engine, bounds shared by flock."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from evaluator.attempts import run_attempt
from evaluator.executor._protocol import AttemptWork, ModelSpec
from evaluator.grading import DockerGrader, GradeOutcome, GradeSpec
from evaluator.sandbox import DockerSandboxes
from evaluator.store import Store

Slot = Callable[[], AbstractContextManager[Any]]


class LocalExecutor:
    """Sandbox work on this machine. `slot` holds one of the machine's sandbox slots while a
    sandbox is open; `model_limiter(spec)` is the bound on requests in flight to spec's endpoint
    (both injected by the pipeline, which owns the store's lock files)."""

    name = "local"
    tries = 1

    def __init__(self, sandboxes: DockerSandboxes, slot: Slot,
                 model_limiter: Callable[[ModelSpec], Slot]) -> None:
        self._sandboxes = sandboxes
        self._slot = slot
        self._model_limiter = model_limiter

    def run_attempt(self, work: AttemptWork, store: Store,
                    on_start: Callable[[], None] = lambda: None) -> dict[str, Any]:
        with self._slot():
            on_start()
            return run_attempt(
                store=store, sandboxes=self._sandboxes,
                model=work.model.client(self._model_limiter(work.model)), agent=work.agent,
                task=work.task, pin=work.pin, limits=work.limits, key=work.key, seed=work.seed,
                sandbox_usd_per_hour=work.sandbox_usd_per_hour)

    def grader(self) -> _SlotGrader:
        return _SlotGrader(DockerGrader(self._sandboxes), self._slot)


class _SlotGrader:
    def __init__(self, inner: DockerGrader, slot: Slot) -> None:
        self._inner, self._slot = inner, slot

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        with self._slot():
            return self._inner.grade(spec, patch, hidden)
