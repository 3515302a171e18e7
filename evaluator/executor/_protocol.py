"""The executor seam: where an attempt's or a grade's sandbox work runs.

The pipeline decides what runs and writes every record; an executor only does the sandbox work
(an agent driven in a sandbox, a patch graded in one) and hands the result back. So keys,
records, policy, budget and reports are the same whichever executor ran the work.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from evaluator.agents import Agent
from evaluator.attempts import AttemptRun
from evaluator.errors import InfraError
from evaluator.grading import Grader
from evaluator.hashing import hash_bytes
from evaluator.lock import TaskPin
from evaluator.model import OpenAIClient, Price, Prices
from evaluator.sandbox import SandboxLimits
from evaluator.store import Store
from evaluator.taskset import Task


class WorkLost(InfraError):
    """The node running the work died or lost its engine; the work may be retried elsewhere."""


@dataclass(frozen=True)
class ModelSpec:
    """How to reach an agent's model: enough to build its client on any machine.

    The API key travels by name only (`api_key_env`): each node reads it from its own
    environment, so the secret never enters a task's arguments or Ray's object store.
    """

    url: str
    model_id: str
    api_key_env: str | None
    timeout_s: float
    max_retries: int
    prices: Prices
    max_in_flight: int

    @property
    def price(self) -> Price | None:
        """The model's price table entry: each request is bounded by it before it is sent."""
        return self.prices.get(self.model_id)

    @property
    def endpoint_key(self) -> str:
        return hash_bytes(self.url.encode())[:12]

    def client(self, limiter: Callable[[], AbstractContextManager[Any]]) -> Any:
        return OpenAIClient(self.url, self.model_id, api_key_env=self.api_key_env,
                            timeout_s=self.timeout_s, max_retries=self.max_retries,
                            prices=self.prices, max_in_flight=self.max_in_flight, limiter=limiter)


@dataclass(frozen=True)
class AttemptWork:
    """Everything one attempt's sandbox work needs, and nothing of the store."""

    agent: Agent
    task: Task
    pin: TaskPin
    limits: SandboxLimits
    key: str
    seed: int
    model: ModelSpec
    sandbox_usd_per_hour: float = 0.0

    @property
    def image(self) -> str:
        return self.pin.image


class Executor(Protocol):
    """Runs sandbox work. `tries` is how often the pipeline may hand one attempt over when the
    work is lost with its node (`WorkLost`); each loss is recorded as an infrastructure error."""

    name: str
    tries: int

    def run_attempt(self, work: AttemptWork, store: Store,
                    on_start: Callable[[], None] = lambda: None) -> AttemptRun:
        """Run the attempt; return what it produced (not yet stored), its blobs already in `store`.
        `on_start` is called once its sandbox work starts (it waited in a queue until then)."""
        ...

    def grader(self, on_lost: Callable[[WorkLost], None] = lambda _: None) -> Grader:
        """A grader whose sandboxes this executor runs. A grade lost with its node is graded
        again elsewhere; `on_lost` is told of each such loss (to record it as an infra error),
        and the last loss is raised like any infrastructure error."""
        ...
