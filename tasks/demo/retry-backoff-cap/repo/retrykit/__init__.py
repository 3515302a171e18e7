"""retrykit: retries with exponential backoff for HTTP-style clients."""

from .client import Request, Response, RetryingClient
from .clock import FakeClock, SystemClock
from .errors import RetryError, TransportError
from .jitter import equal_jitter, full_jitter, no_jitter
from .policy import RetryPolicy

__all__ = [
    "FakeClock",
    "Request",
    "Response",
    "RetryError",
    "RetryPolicy",
    "RetryingClient",
    "SystemClock",
    "TransportError",
    "equal_jitter",
    "full_jitter",
    "no_jitter",
]

__version__ = "0.9.1"
