"""Formatting of durations for display."""

from .units import UNIT_SECONDS

_NAMES = {"w": "week", "d": "day", "h": "hour", "m": "minute", "s": "second"}


def _split(seconds, units):
    if seconds < 0:
        raise ValueError("durations must not be negative")
    remaining = int(round(seconds))
    parts = []
    for unit in units:
        size = UNIT_SECONDS[unit]
        count, remaining = divmod(remaining, size)
        if count:
            parts.append((count, unit))
    return parts


def format_duration(seconds, *, weeks=False):
    """Format a number of seconds compactly: ``5400`` -> ``"1h30m"``.

    Weeks are only used when ``weeks=True``; zero is ``"0s"``.
    """
    units = "wdhms" if weeks else "dhms"
    parts = _split(seconds, units)
    if not parts:
        return "0s"
    return "".join(f"{count}{unit}" for count, unit in parts)


def humanize(seconds):
    """Format a number of seconds as words: ``"1 hour and 30 minutes"``."""
    parts = [
        f"{count} {_NAMES[unit]}{'' if count == 1 else 's'}"
        for count, unit in _split(seconds, "dhms")
    ]
    if not parts:
        return "0 seconds"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]
