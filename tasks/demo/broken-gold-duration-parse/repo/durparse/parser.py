"""Parsing of duration strings."""

import datetime
import re

from .units import canonical_unit, unit_seconds

_NUMBER = r"\d+"
_COMPONENT_RE = re.compile(rf"({_NUMBER})\s*([A-Za-z]+)")
_FULL_RE = re.compile(rf"^(?:{_NUMBER}\s*[A-Za-z]+\s*,?\s*)+$")
_BARE_NUMBER_RE = re.compile(r"^\d+$")


class InvalidDuration(ValueError):
    """Raised for strings that are not valid durations."""


def parse_seconds(text):
    """Return the length of the duration ``text`` in seconds.

    ``text`` is a sequence of ``<amount><unit>`` components, optionally
    separated by spaces or commas: ``"1h30m"``, ``"2 days, 4 hours"``.
    Amounts may be decimals (``"1.5h"``).  A bare number means seconds.
    Each unit may appear only once.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    stripped = text.strip()
    if _BARE_NUMBER_RE.match(stripped):
        return int(stripped)
    if not stripped or not _FULL_RE.match(stripped):
        raise InvalidDuration(f"invalid duration: {text!r}")
    total = 0
    seen = set()
    for amount, unit_name in _COMPONENT_RE.findall(stripped):
        unit = canonical_unit(unit_name)
        if unit is None:
            raise InvalidDuration(f"unknown unit {unit_name!r} in {text!r}")
        if unit in seen:
            raise InvalidDuration(f"unit {unit_name!r} given twice in {text!r}")
        seen.add(unit)
        total += int(amount) * unit_seconds(unit)
    return total


def parse_duration(text):
    """Parse ``text`` into a :class:`datetime.timedelta`."""
    return datetime.timedelta(seconds=parse_seconds(text))
