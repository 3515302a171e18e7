"""Validation helpers for the dot-separated identifiers of a version.

A semantic version may carry a pre-release suffix (``1.0.0-rc.1``) and build
metadata (``1.0.0+20240101.sha.5114f85``).  Both are a series of identifiers
separated by dots.  The rules differ slightly:

* identifiers consist of ASCII alphanumerics and hyphens and are never empty;
* numeric *pre-release* identifiers must not have leading zeros;
* build identifiers may have leading zeros.
"""

import re

from .errors import InvalidVersion

_IDENTIFIER_RE = re.compile(r"^[0-9A-Za-z-]+$")


def is_numeric(identifier):
    """Return True if ``identifier`` consists only of ASCII digits."""
    return identifier.isascii() and identifier.isdigit()


def split_identifiers(text, *, kind, source):
    """Split ``text`` on dots and validate every identifier.

    ``kind`` is either ``"prerelease"`` or ``"build"`` and selects the rules
    to apply; ``source`` is the full version string, used in error messages.
    Returns a tuple of identifier strings.
    """
    if kind not in ("prerelease", "build"):
        raise ValueError(f"unknown identifier kind: {kind!r}")
    parts = text.split(".")
    for part in parts:
        if not part:
            raise InvalidVersion(source, f"empty {kind} identifier")
        if not _IDENTIFIER_RE.match(part):
            raise InvalidVersion(source, f"illegal character in {kind} identifier {part!r}")
        if kind == "prerelease" and is_numeric(part) and len(part) > 1 and part[0] == "0":
            raise InvalidVersion(source, f"numeric identifier {part!r} has a leading zero")
    return tuple(parts)


def coerce_identifiers(value, *, kind, source):
    """Accept identifiers as a string, an iterable of str/int, or None.

    Used by the :class:`~semverkit.version.Version` constructor so callers can
    write ``Version(1, 0, 0, prerelease="rc.1")`` or
    ``Version(1, 0, 0, prerelease=("rc", 1))``.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        if value == "":
            return ()
        return split_identifiers(value, kind=kind, source=source)
    parts = [str(part) for part in value]
    if not parts:
        return ()
    return split_identifiers(".".join(parts), kind=kind, source=source)
