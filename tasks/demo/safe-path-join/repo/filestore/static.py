"""Resolving static-file URLs to files on disk."""

from __future__ import annotations

import mimetypes
import os
from dataclasses import dataclass
from typing import Optional
from urllib.parse import unquote

from .paths import PathLike, safe_join


@dataclass(frozen=True)
class StaticFile:
    path: str
    content_type: str
    size: int


class StaticResolver:
    """Map ``/static/...`` URLs to files below ``root``.

    URL paths are percent-decoded before they are checked, so ``%2e%2e``
    cannot be used to sneak ``..`` past the check.  A URL naming a directory
    serves its ``index.html`` when there is one.
    """

    def __init__(self, root: PathLike, url_prefix: str = "/static/") -> None:
        self.root = os.path.abspath(os.fspath(root))
        self.url_prefix = url_prefix if url_prefix.endswith("/") else url_prefix + "/"

    def resolve(self, url_path: str) -> Optional[StaticFile]:
        """Return the file for ``url_path``, or ``None`` if there is none.

        Raises :class:`~filestore.errors.UnsafePathError` for paths that try
        to leave the static root.
        """
        if not url_path.startswith(self.url_prefix):
            return None
        rel = unquote(url_path[len(self.url_prefix):].split("?", 1)[0])
        path = safe_join(self.root, rel)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path):
            return None
        content_type, encoding = mimetypes.guess_type(path)
        if content_type is None:
            content_type = "application/octet-stream"
        elif content_type.startswith("text/") or content_type in ("application/javascript", "application/json"):
            content_type += "; charset=utf-8"
        return StaticFile(path=path, content_type=content_type, size=os.path.getsize(path))
