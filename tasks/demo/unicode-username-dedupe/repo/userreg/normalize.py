"""Canonical forms of usernames.

Two usernames refer to the same account when their canonical forms are
equal.  The canonical form is what the registry uses as its lookup key; it is
never shown to users.
"""

#: Characters stripped from both ends of a username before comparing.
_STRIP = " \t\r\n\u00a0\u200b"


def canonical_username(name):
    """Return the canonical (lookup) form of *name*.

    Usernames are compared case-insensitively and surrounding whitespace is
    ignored, so ``"Alice"``, ``" alice "`` and ``"ALICE"`` all map to the
    same key.
    """
    if not isinstance(name, str):
        raise TypeError("username must be a str, not %s" % type(name).__name__)
    return name.strip(_STRIP).lower()


def same_username(a, b):
    """Return True if *a* and *b* name the same account."""
    return canonical_username(a) == canonical_username(b)
