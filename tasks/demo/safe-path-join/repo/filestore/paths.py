"""Joining untrusted path fragments onto a trusted root.

Names arriving in requests (``?file=...``, multipart filenames, URL paths)
must never let a client read or write outside the storage root.  The helpers
here normalise the fragments and then check the *result*, so that tricks
such as ``a/../../etc/passwd``, ``/etc/passwd`` or Windows-style
``..\\..\\secret`` are rejected no matter how they are spelled.

Symbolic links inside the root are trusted (they are created by operators,
not by clients), so paths are normalised lexically and not resolved.
"""

from __future__ import annotations

import os
import posixpath
from typing import Union

from .errors import UnsafePathError

PathLike = Union[str, "os.PathLike[str]"]


def clean_relative_path(name: str) -> str:
    """Normalise a client-supplied relative path.

    Backslashes are treated as separators, empty and ``.`` segments are
    dropped and ``..`` segments are resolved.  The result uses ``/`` and has
    no leading slash; it may still start with ``..`` if the name climbs above
    its starting point, which :func:`safe_join` then rejects.

    >>> clean_relative_path("css\\\\site.css")
    'css/site.css'
    >>> clean_relative_path("./a//b/../c")
    'a/c'
    """
    if "\x00" in name:
        raise UnsafePathError("NUL byte in path")
    name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafePathError(f"absolute path not allowed: {name!r}")
    cleaned = posixpath.normpath(name)
    return "" if cleaned == "." else cleaned


def safe_join(root: PathLike, *parts: str) -> str:
    """Join ``parts`` onto ``root`` and make sure the result stays inside it.

    Returns an absolute, normalised path.  Raises :class:`UnsafePathError` if
    the joined path is not ``root`` itself or a descendant of it.

    >>> safe_join("/srv/data", "a", "b.txt")
    '/srv/data/a/b.txt'
    """
    root = os.path.abspath(os.fspath(root))
    cleaned = [clean_relative_path(p) for p in parts]
    joined = os.path.normpath(os.path.join(root, *[c for c in cleaned if c]))
    if not joined.startswith(root):
        raise UnsafePathError(f"path escapes storage root: {'/'.join(parts)!r}")
    return joined


def relative_to_root(root: PathLike, path: PathLike) -> str:
    """Return ``path`` relative to ``root`` using ``/`` separators."""
    rel = os.path.relpath(os.fspath(path), os.path.abspath(os.fspath(root)))
    return rel.replace(os.sep, "/")
