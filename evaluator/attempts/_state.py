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

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.store import Store

PENDING, ERROR, QUARANTINED, UNGRADED = "pending", "error", "quarantined", "ungraded"
PART = 5000  # planned attempts whose rows a command holds at once


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

    def __init__(self, attempts: dict[str, StoredAttempt], result_of: dict[str, str],
                 results: dict[str, StoredResult], errors: dict[str, int],
                 retry_budget: int) -> None:
        self.attempts, self.results, self.errors = attempts, results, errors
        self._result_of = result_of  # attempt key -> the key its result has under the plan
        self._retry_budget = retry_budget

    @classmethod
    def read(cls, store: Store, plan: Any) -> EvalState:
        """The state of every attempt of `plan` (an `EvalPlan`) at once; see `parts`."""
        return cls._read(store, plan.attempts, store.error_counts("attempt"),
                         plan.spec.retry_budget)

    @classmethod
    def parts(cls, store: Store, plan: Any,
              size: int = PART) -> Iterator[tuple[Sequence[Any], EvalState]]:
        """The plan's attempts `size` at a time, each part with its state: a command over
        100,000 attempts holds one part's rows at a time, not all of them."""
        errors = store.error_counts("attempt")
        for start in range(0, len(plan.attempts), size):
            part = plan.attempts[start:start + size]
            yield part, cls._read(store, part, errors, plan.spec.retry_budget)

    @classmethod
    def _read(cls, store: Store, planned: Sequence[Any], errors: dict[str, int],
              retry_budget: int) -> EvalState:
        # Looked up by their keys, so records another set made under the same key (the same
        # task and pins) count, as they would one by one.
        if store.remote is not None:  # what the remote holds lands here (and in the index) first
            store.prefetch("attempt", [pa.key for pa in planned])
        attempts = {key: StoredAttempt(str(patch), float(cost or 0.0))
                    for key, patch, cost in store.index.fields(
                        "attempt", ("patch", "cost.total_usd"), keys=[pa.key for pa in planned])}
        result_of = {pa.key: pa.result_key(attempts[pa.key].patch) for pa in planned
                     if pa.key in attempts}
        if store.remote is not None:
            store.prefetch("result", result_of.values())
        results = {key: StoredResult(sys.intern(str(status)), float(cost or 0.0),
                                     unpriced != "null")
                   for key, status, cost, unpriced in store.index.fields(
                       "result", ("status", "cost.total_usd", "cost.model_usd:type"),
                       keys=result_of.values())}
        return cls(attempts, result_of, results, errors, retry_budget)

    def quarantined(self, key: str) -> bool:
        return self.errors.get(key, 0) >= self._retry_budget

    def done(self, pa: Any) -> bool:
        """Stored, or held back after too many infra errors: nothing for `eval` to run."""
        return pa.key in self.attempts or self.quarantined(pa.key)

    def result_key(self, pa: Any) -> str | None:
        """The key `pa`'s result has under the plan (None while no attempt is stored)."""
        return self._result_of.get(pa.key)

    def result(self, pa: Any) -> StoredResult | None:
        key = self._result_of.get(pa.key)
        return None if key is None else self.results.get(key)

    def status(self, pa: Any) -> tuple[str, StoredResult | None]:
        """pending, error, quarantined, ungraded, or the result's status (and the result)."""
        if pa.key not in self.attempts:
            if self.quarantined(pa.key):
                return QUARANTINED, None
            return (ERROR if pa.key in self.errors else PENDING), None
        result = self.result(pa)
        return (result.status, result) if result else (UNGRADED, None)
