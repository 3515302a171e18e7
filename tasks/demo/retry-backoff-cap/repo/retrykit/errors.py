"""Exceptions raised by retrykit."""

from __future__ import annotations

from typing import Optional


class TransportError(Exception):
    """A request could not be completed (connection refused, reset, timeout...)."""


class RetryError(Exception):
    """Every allowed attempt failed.

    :ivar attempts: how many attempts were made in total.
    :ivar last_response: the final response, if the last attempt got one.
    :ivar last_exception: the final transport error, if the last attempt raised.
    """

    def __init__(self, attempts: int, last_response=None, last_exception: Optional[BaseException] = None) -> None:
        self.attempts = attempts
        self.last_response = last_response
        self.last_exception = last_exception
        if last_response is not None:
            detail = f"last status {last_response.status}"
        else:
            detail = f"last error {last_exception!r}"
        super().__init__(f"giving up after {attempts} attempt(s), {detail}")
