"""Username rules."""

import unicodedata

from .errors import InvalidUsername
from .normalize import canonical_username

MIN_LENGTH = 3
MAX_LENGTH = 30

#: Punctuation allowed inside a username.
ALLOWED_PUNCTUATION = frozenset("._-")

#: Names that cannot be registered because they clash with site URLs.
RESERVED = frozenset({"admin", "root", "support", "help", "api", "www", "settings"})


def _is_allowed(ch):
    category = unicodedata.category(ch)
    # Letters of any script, digits, and combining marks (accents that some
    # keyboards and operating systems send as separate code points).
    return category[0] in ("L", "N", "M") or ch in ALLOWED_PUNCTUATION


def validate_username(name):
    """Check *name* against the username rules.

    Returns the canonical form of *name* on success.

    :raises InvalidUsername: with a message suitable for showing to the user.
    """
    key = canonical_username(name)
    if not key:
        raise InvalidUsername("Please choose a username.")
    letters = sum(1 for ch in key if unicodedata.category(ch)[0] != "M")
    if letters < MIN_LENGTH:
        raise InvalidUsername("Usernames must be at least %d characters long." % MIN_LENGTH)
    if letters > MAX_LENGTH:
        raise InvalidUsername("Usernames must be at most %d characters long." % MAX_LENGTH)
    bad = sorted({ch for ch in key if not _is_allowed(ch)})
    if bad:
        raise InvalidUsername(
            "Usernames may not contain %s." % ", ".join(repr(ch) for ch in bad)
        )
    if not unicodedata.category(key[0])[0] in ("L", "N"):
        raise InvalidUsername("Usernames must start with a letter or a digit.")
    if key in RESERVED:
        raise InvalidUsername("The username %r is reserved." % name.strip())
    return key
