"""Where an eval stands, read from the store's index in one pass per record kind.

Which planned attempts are stored, graded, failing with infrastructure errors or quarantined,
and what the graded ones cost: what `doit eval` needs to decide which targets to make, what its
summary and `doit plan` count, with no record file read and no per-attempt query. At 100,000
attempts that is three queries over the index (attempts, results, an error listing) instead of
200,000 file reads.

The index is derived from the records; a record it lacks (a crash between the two) only makes
its target run, and the target finds the record and indexes it again (`Store.has_indexed`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.attempts._config import EvalSpec
from evaluator.store import Store

PENDING, ERROR, QUARANTINED, UNGRADED = "pending", "error", "quarantined", "ungraded"


@dataclass(frozen=True, slots=True)
class StoredAttempt:
    patch: str
    cost_usd: float


@dataclass(frozen=True, slots=True)
class StoredResult:
    status: str  # resolved, failed or policy
    cost_usd: float
    priced: bool  # False: an unpriced model's attempt (its dollars are the sandbox's alone)


class EvalState:
    """The stored attempts, results and infra errors of one task set."""

    def __init__(self, attempts: dict[str, StoredAttempt], results: dict[str, StoredResult],
                 errors: dict[str, int], retry_budget: int) -> None:
        self.attempts, self.results, self.errors = attempts, results, errors
        self._retry_budget = retry_budget

    @classmethod
    def read(cls, store: Store, task_set: str, spec: EvalSpec) -> EvalState:
        if store.remote is not None:  # what the remote holds lands here (and in the index) first
            store.remote.mirror("attempt")
            store.remote.mirror("result")
        attempts = {key: StoredAttempt(str(patch), float(cost or 0.0))
                    for key, patch, cost in store.index.fields(
                        "attempt", ("patch", "cost.total_usd"), task_set=task_set)}
        results = {key: StoredResult(str(status), float(cost or 0.0), unpriced != "null")
                   for key, status, cost, unpriced in store.index.fields(
                       "result", ("status", "cost.total_usd", "cost.model_usd:type"),
                       task_set=task_set)}
        return cls(attempts, results, store.error_counts("attempt"), spec.retry_budget)

    def quarantined(self, key: str) -> bool:
        return self.errors.get(key, 0) >= self._retry_budget

    def done(self, pa: Any) -> bool:
        """Stored, or held back after too many infra errors: nothing for `eval` to run."""
        return pa.key in self.attempts or self.quarantined(pa.key)

    def result(self, pa: Any) -> StoredResult | None:
        attempt = self.attempts.get(pa.key)
        return None if attempt is None else self.results.get(pa.result_key(attempt.patch))

    def status(self, pa: Any) -> tuple[str, StoredResult | None]:
        """pending, error, quarantined, ungraded, or the result's status (and the result)."""
        if pa.key not in self.attempts:
            if self.quarantined(pa.key):
                return QUARANTINED, None
            return (ERROR if pa.key in self.errors else PENDING), None
        result = self.result(pa)
        return (result.status, result) if result else (UNGRADED, None)
