"""An OpenAI-compatible chat-completions client that retries what is transient and nothing else.

The API key is read from the environment at request time and only ever placed in the request
header: it is kept out of logs, exception messages and repr, since all three end up in reports.

`timeout_s` bounds each try as a whole, from sending to the reply's last byte: httpx's own
timeouts bound each read, and a server that streams a token now and then never trips them.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from evaluator.errors import BadInputError

from ._errors import ContextLengthError, ModelRequestError, ModelUnavailableError
from ._limiter import Limiter, endpoint_limiter
from ._parse import Malformed, Parsed, StreamAssembler, parse_body
from ._prices import Prices
from ._refusal import is_context_refusal
from ._request import request_body
from ._stats import ClientStats, StatsCounter
from ._types import SIMULATED_FINGERPRINT, Completion, Message, Tool

_log = logging.getLogger("evaluator.model")

_SNIPPET = 300


class _Retryable(Exception):
    """One failed attempt worth retrying; `cause` is the stats key, `detail` the human text."""

    def __init__(self, cause: str, detail: str, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.cause = cause
        self.detail = detail
        self.retry_after = retry_after


class OpenAIClient:
    """POSTs to `{base_url}/chat/completions`; thread-safe, one instance can serve many agents."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        max_in_flight: int = 4,
        prices: Prices | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        limiter: Limiter | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self._url = f"{self.base_url}/chat/completions"
        self._timeout_s = timeout_s
        self._timeout = httpx.Timeout(timeout_s)
        self._max_retries = max_retries
        self._backoff_base_s = backoff_base_s
        self._backoff_max_s = backoff_max_s
        self._prices = prices or Prices()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._rng_lock = threading.Lock()
        self._limiter = limiter or endpoint_limiter(self.base_url, max_in_flight)
        self._stats = StatsCounter()
        self._http = httpx.Client(transport=transport, timeout=self._timeout)

    def __repr__(self) -> str:
        return (
            f"OpenAIClient(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r})"
        )

    @property
    def stats(self) -> ClientStats:
        return self._stats.snapshot()

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(
        self,
        messages: Sequence[Message],
        *,
        seed: int,
        temperature: float,
        max_tokens: int | None = None,
        tools: Sequence[Tool] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        n: int = 1,
        stream: bool = False,
        extra: Mapping[str, Any] | None = None,
    ) -> Completion:
        key = self._api_key()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        body = request_body(self.model, messages, seed, temperature, max_tokens, tools, tool_choice, n,
                     stream, extra)
        attempts = self._max_retries + 1
        last: _Retryable | None = None
        for attempt in range(attempts):
            if last is not None:
                delay = self._delay(attempt - 1, last.retry_after)
                _log.debug("retrying %s in %.2fs after %s", self._url, delay, last.cause)
                self._stats.retry()
                self._sleep(delay)
            try:
                return self._attempt(body, headers, key)
            except _Retryable as e:
                _log.debug(
                    "attempt %d/%d at %s failed: %s", attempt + 1, attempts, self._url, e.cause
                )
                self._stats.cause(e.cause)
                last = e
            except BaseException:
                self._stats.failure()
                raise
        self._stats.failure()
        assert last is not None
        raise ModelUnavailableError(self.base_url, attempts, f"{last.cause}: {last.detail}")

    def _api_key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise BadInputError(
                f"environment variable {self.api_key_env} (api_key_env for {self.base_url}) "
                "is not set or empty; export the API key there"
            )
        return key

    def _attempt(
        self, body: dict[str, Any], headers: dict[str, str], key: str | None
    ) -> Completion:
        self._stats.request()
        queued = time.monotonic()
        try:
            with self._limiter():
                started = time.monotonic()
                deadline = started + self._timeout_s
                with self._http.stream("POST", self._url, json=body, headers=headers) as response:
                    parsed = self._read(response, key, bool(body.get("stream")), deadline)
                latency = time.monotonic() - started
        except httpx.UnsupportedProtocol as e:
            raise ModelRequestError(
                f"model endpoint {self.base_url} is not an http(s) URL ({e}); check base_url"
            ) from None
        except httpx.TimeoutException as e:
            raise _Retryable("timeout", f"{type(e).__name__}: {e}") from None
        except httpx.ConnectError as e:
            raise _Retryable("connect_error", f"ConnectError: {e}") from None
        except httpx.TransportError as e:
            # Reset, closed without a response, half-written: the request may be repeated safely.
            raise _Retryable("disconnect", f"{type(e).__name__}: {e}") from None
        return self._completion(parsed, latency, started - queued)

    def _read(self, response: httpx.Response, key: str | None, stream: bool,
              deadline: float) -> Parsed:
        """The parsed answer, or the typed failure; a stream is read to its end first, so a
        stream cut halfway is retried like any other broken response."""
        status = response.status_code
        event_stream = response.headers.get("content-type", "").startswith("text/event-stream")
        if status >= 400 or not event_stream:
            raw = bytearray()
            for piece in response.iter_bytes():
                raw += piece
                self._check_deadline(deadline)
            text = raw.decode("utf-8", "replace")
            snippet = _redact(text[:_SNIPPET], key)
            if status == 429 or status >= 500:
                retry_after = _retry_after(response) if status in (429, 503) else None
                cause = "rate_limited" if status == 429 else "server_error"
                raise _Retryable(cause, f"HTTP {status}: {snippet}", retry_after)
            if is_context_refusal(status, text):
                raise ContextLengthError(
                    f"model endpoint {self.base_url} refused the request with HTTP {status}: the "
                    f"conversation does not fit model {self.model!r}'s context window ({snippet})",
                    status)
            if status >= 400:
                raise ModelRequestError(self._refusal_message(status, snippet), status)
            try:
                # An endpoint that ignores `stream` answers with one JSON body: as good.
                return parse_body(json.loads(text))
            except ValueError as e:
                raise _Retryable("malformed_body", f"{e}: {snippet!r}") from None
        assembler = StreamAssembler()
        try:
            for line in response.iter_lines():
                assembler.feed(line)
                if assembler.done:
                    break
                self._check_deadline(deadline)
            return parse_body(assembler.body())
        except Malformed as e:
            raise _Retryable("malformed_body", f"streamed reply: {e}") from None

    def _check_deadline(self, deadline: float) -> None:
        if time.monotonic() > deadline:
            # Leaving the `with` closes the connection, which tells the server to stop.
            raise _Retryable("timeout", f"no whole reply within timeout_s={self._timeout_s:g}s")

    def _completion(self, parsed: Parsed, latency: float, queue_s: float) -> Completion:
        served_model = parsed.model or self.model
        cost, priced = self._prices.cost(self.model, parsed.usage)
        if not priced:
            cost, priced = self._prices.cost(served_model, parsed.usage)
        self._stats.completion()
        return Completion(
            content=parsed.choices[0].content or "",
            usage=parsed.usage,
            cost_usd=cost,
            model=served_model,
            simulated=parsed.fingerprint == SIMULATED_FINGERPRINT,
            latency_s=latency,
            priced=priced,
            choices=parsed.choices,
            queue_s=queue_s,
            timings=parsed.timings,
            fingerprint=parsed.fingerprint,
        )

    def _refusal_message(self, status: int, snippet: str) -> str:
        head = f"model endpoint {self.base_url} refused the request with HTTP {status} ({snippet})"
        if status in (401, 403):
            if self.api_key_env is None:
                return f"{head}; it wants an API key: set api_key_env to the variable holding it"
            return (
                f"{head}; check the API key in ${self.api_key_env} is valid and may use "
                f"model {self.model!r}"
            )
        if status == 404:
            return f"{head}; check the model id {self.model!r} and the base URL"
        return (
            f"{head}; check the model id {self.model!r}, the request parameters "
            "(temperature, max_tokens, tools, extra fields) and the context length"
        )

    def _delay(self, retry_index: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._backoff_max_s)
        # Full jitter: spreads retries of many clients hit by the same outage.
        cap = min(self._backoff_max_s, self._backoff_base_s * (2.0**retry_index))
        with self._rng_lock:
            return self._rng.uniform(0.0, cap)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _redact(text: str, key: str | None) -> str:
    # Some endpoints echo the key back in their 401 body; that body goes into exception messages.
    return text.replace(key, "***") if key else text


__all__ = ["OpenAIClient"]
