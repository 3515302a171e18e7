"""Parsing of the ``Retry-After`` response header (RFC 9110, section 10.2.3).

The header is either a number of seconds (``Retry-After: 120``) or an
HTTP-date (``Retry-After: Wed, 21 Oct 2015 07:28:00 GMT``).
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Mapping, Optional


def parse_retry_after(value: Optional[str], now: float) -> Optional[float]:
    """Return the number of seconds to wait, or ``None`` if ``value`` is unusable.

    :param value: the raw header value.
    :param now: the current UNIX time, used to turn an HTTP-date into a delay.

    Dates in the past give ``0.0``.  Negative or malformed values give
    ``None`` so that the caller falls back to its own backoff.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


def header(headers: Mapping[str, str], name: str) -> Optional[str]:
    """Case-insensitive header lookup."""
    lowered = name.lower()
    for key, value in headers.items():
        if key.lower() == lowered:
            return value
    return None
