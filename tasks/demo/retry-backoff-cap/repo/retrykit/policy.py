"""Retry policies."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import FrozenSet, Optional

from .jitter import Jitter, full_jitter

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before retrying a request.

    :param max_attempts: total number of attempts, *including* the first one;
        ``max_attempts=1`` disables retries.
    :param base_delay: delay before the first retry, in seconds.
    :param multiplier: factor applied to the delay after every retry.
    :param max_delay: upper bound, in seconds, for any single wait between two
        attempts.  This also bounds a server-supplied ``Retry-After``: a
        longer value is clamped to ``max_delay``.
    :param jitter: a strategy from :mod:`retrykit.jitter`.
    :param retry_statuses: response statuses that are retried.
    :param retry_methods: HTTP methods that may be retried; non-idempotent
        methods such as ``POST`` are not retried unless listed here.
    :param respect_retry_after: whether to honour ``Retry-After`` on retried
        responses; the wait is then at least the server's value.
    """

    max_attempts: int = 3
    base_delay: float = 0.5
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: Jitter = full_jitter
    retry_statuses: FrozenSet[int] = RETRY_STATUSES
    retry_methods: FrozenSet[str] = IDEMPOTENT_METHODS
    respect_retry_after: bool = True

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("delays must not be negative")
        if self.multiplier < 1:
            raise ValueError("multiplier must be >= 1")
        object.__setattr__(self, "retry_methods", frozenset(m.upper() for m in self.retry_methods))

    def is_retryable_method(self, method: str) -> bool:
        return method.upper() in self.retry_methods

    def is_retryable_status(self, status: int) -> bool:
        return status in self.retry_statuses

    def backoff(self, retry_number: int, rng: random.Random) -> float:
        """Exponential backoff (with jitter) before retry ``retry_number`` (1-based).

        >>> from retrykit.jitter import no_jitter
        >>> p = RetryPolicy(base_delay=1, max_delay=5, jitter=no_jitter)
        >>> [p.backoff(n, random.Random()) for n in range(1, 6)]
        [1.0, 2.0, 4.0, 5.0, 5.0]
        """
        if retry_number < 1:
            raise ValueError("retry_number starts at 1")
        exponential = self.base_delay * (self.multiplier ** (retry_number - 1))
        return self.jitter(float(min(exponential, self.max_delay)), rng)

    def delay_for(self, retry_number: int, rng: random.Random, retry_after: Optional[float] = None) -> float:
        """The wait before retry ``retry_number``.

        ``retry_after`` is the server's ``Retry-After`` in seconds, if any.
        The result is never larger than :attr:`max_delay`.
        """
        delay = self.backoff(retry_number, rng)
        if retry_after is not None and self.respect_retry_after:
            delay = max(delay, retry_after)
        return delay

    def with_options(self, **changes) -> "RetryPolicy":
        """Return a copy of this policy with some settings changed."""
        return replace(self, **changes)
