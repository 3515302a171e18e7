"""Duration units and their length in seconds."""

UNIT_SECONDS = {
    "w": 7 * 24 * 3600,
    "d": 24 * 3600,
    "h": 3600,
    "m": 60,
    "s": 1,
}

_ALIASES = {
    "w": ("w", "wk", "wks", "week", "weeks"),
    "d": ("d", "day", "days"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "m": ("m", "min", "mins", "minute", "minutes"),
    "s": ("s", "sec", "secs", "second", "seconds"),
}

_LOOKUP = {alias: unit for unit, aliases in _ALIASES.items() for alias in aliases}


def canonical_unit(name):
    """Return the one-letter unit for ``name`` (``"Hours"`` -> ``"h"``), or None."""
    return _LOOKUP.get(name.strip().lower())


def unit_seconds(name):
    """Return the number of seconds in one ``name`` unit; KeyError if unknown."""
    unit = canonical_unit(name)
    if unit is None:
        raise KeyError(name)
    return UNIT_SECONDS[unit]
