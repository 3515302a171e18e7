"""ASCII slugs for profile URLs."""

import re
import unicodedata

_NON_SLUG = re.compile(r"[^a-z0-9]+")

#: Letters that do not decompose into an ASCII base letter plus accents.
_TRANSLITERATE = {
    "ß": "ss",
    "æ": "ae",
    "ø": "o",
    "đ": "d",
    "ł": "l",
    "œ": "oe",
    "þ": "th",
}


def slugify(text, fallback="user"):
    """Turn *text* into a lowercase ASCII slug such as ``"jose-maria"``.

    Accents are removed, a few common letters are transliterated and runs of
    anything else become a single hyphen.  If nothing is left (for example
    for a name written entirely in a non-Latin script), *fallback* is
    returned.
    """
    text = text.lower()
    text = "".join(_TRANSLITERATE.get(ch, ch) for ch in text)
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = decomposed.encode("ascii", "ignore").decode("ascii")
    slug = _NON_SLUG.sub("-", ascii_text).strip("-")
    return slug or fallback


def unique_slug(text, taken, fallback="user"):
    """Return a slug for *text* that is not in the set *taken*.

    ``"jose"`` becomes ``"jose-2"``, ``"jose-3"``, ... if needed.
    """
    base = slugify(text, fallback=fallback)
    slug, n = base, 1
    while slug in taken:
        n += 1
        slug = "%s-%d" % (base, n)
    return slug
