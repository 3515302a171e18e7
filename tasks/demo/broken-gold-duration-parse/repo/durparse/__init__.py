"""durparse: parse and format human-written durations."""

from .formatting import format_duration, humanize
from .parser import InvalidDuration, parse_duration, parse_seconds
from .units import UNIT_SECONDS, unit_seconds

__all__ = [
    "InvalidDuration",
    "UNIT_SECONDS",
    "format_duration",
    "humanize",
    "parse_duration",
    "parse_seconds",
    "unit_seconds",
]

__version__ = "0.2.3"
