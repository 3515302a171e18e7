"""A client wrapper that retries failed requests."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Protocol

from .clock import SystemClock
from .errors import RetryError, TransportError
from .policy import RetryPolicy
from .retry_after import header, parse_retry_after

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: Dict[str, str] = field(default_factory=dict)
    body: Optional[bytes] = None


@dataclass(frozen=True)
class Response:
    status: int
    headers: Dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 400


class Transport(Protocol):
    def send(self, request: Request) -> Response:  # pragma: no cover - protocol
        ...


@dataclass(frozen=True)
class RetryEvent:
    """One retry decision, recorded in :attr:`RetryingClient.history`."""

    attempt: int
    delay: float
    status: Optional[int] = None
    error: Optional[str] = None


class RetryingClient:
    """Send requests through ``transport``, retrying according to ``policy``.

    * responses with a status in ``policy.retry_statuses`` and
      :class:`TransportError` exceptions are retried, for methods the policy
      allows;
    * between attempts the client sleeps ``policy.delay_for(...)`` seconds on
      its clock, taking ``Retry-After`` into account;
    * when all ``policy.max_attempts`` attempts fail, :class:`RetryError` is
      raised.  A non-retryable response is returned as is, whatever its status.
    """

    def __init__(
        self,
        transport: Transport,
        policy: Optional[RetryPolicy] = None,
        *,
        clock=None,
        rng: Optional[random.Random] = None,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
    ) -> None:
        self.transport = transport
        self.policy = policy or RetryPolicy()
        self.clock = clock or SystemClock()
        self.rng = rng or random.Random()
        self.on_retry = on_retry
        self.history: List[RetryEvent] = []

    def _retry_after(self, response: Response) -> Optional[float]:
        return parse_retry_after(header(response.headers, "Retry-After"), self.clock.time())

    def send(self, request: Request) -> Response:
        policy = self.policy
        retryable_method = policy.is_retryable_method(request.method)
        attempt = 0
        while True:
            attempt += 1
            response: Optional[Response] = None
            error: Optional[TransportError] = None
            try:
                response = self.transport.send(request)
            except TransportError as exc:
                error = exc
            else:
                if not policy.is_retryable_status(response.status):
                    return response

            if not retryable_method:
                if error is not None:
                    raise error
                return response
            if attempt >= policy.max_attempts:
                raise RetryError(attempt, last_response=response, last_exception=error)

            retry_after = self._retry_after(response) if response is not None else None
            delay = policy.delay_for(attempt, self.rng, retry_after)
            event = RetryEvent(
                attempt=attempt,
                delay=delay,
                status=response.status if response is not None else None,
                error=repr(error) if error is not None else None,
            )
            self.history.append(event)
            if self.on_retry is not None:
                self.on_retry(event)
            log.info("retrying %s %s in %.2fs (attempt %d failed)", request.method, request.url, delay, attempt)
            self.clock.sleep(delay)

    def request(self, method: str, url: str, *, headers: Optional[Dict[str, str]] = None, body: Optional[bytes] = None) -> Response:
        return self.send(Request(method.upper(), url, dict(headers or {}), body))

    def get(self, url: str, **kwargs) -> Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs) -> Response:
        return self.request("POST", url, **kwargs)
