"""Validation and storage of user uploads."""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from typing import Iterable, Optional

from .errors import FileTooLarge, NotAllowed
from .storage import LocalStorage

_UNSAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")

DEFAULT_EXTENSIONS = frozenset({".jpg", ".jpeg", ".png", ".gif", ".pdf", ".txt", ".csv"})


def secure_filename(filename: str) -> str:
    """Reduce a client-supplied filename to a safe basename.

    Directory components are dropped (with either kind of slash), unusual
    characters become ``_`` and leading dots are removed so that the result
    is never hidden or empty.

    >>> secure_filename("../../etc/passwd")
    'passwd'
    >>> secure_filename("My CV (final).pdf")
    'My_CV_final_.pdf'
    """
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    base = _UNSAFE_CHARS.sub("_", base).strip("_")
    base = base.lstrip(".")
    return base or "upload"


@dataclass(frozen=True)
class StoredFile:
    name: str
    size: int
    url: str


class UploadHandler:
    """Accept uploads for a user and store them under ``users/<id>/``."""

    def __init__(
        self,
        storage: LocalStorage,
        *,
        max_bytes: int = 10 * 1024 * 1024,
        allowed_extensions: Optional[Iterable[str]] = None,
    ) -> None:
        self.storage = storage
        self.max_bytes = max_bytes
        exts = DEFAULT_EXTENSIONS if allowed_extensions is None else allowed_extensions
        self.allowed_extensions = frozenset(e.lower() for e in exts)

    def folder_for(self, user_id: int) -> str:
        return f"users/{int(user_id)}"

    def _unique_name(self, folder: str, filename: str) -> str:
        stem, ext = os.path.splitext(filename)
        candidate, n = filename, 1
        while self.storage.exists(f"{folder}/{candidate}"):
            n += 1
            candidate = f"{stem}-{n}{ext}"
        return f"{folder}/{candidate}"

    def store(self, user_id: int, filename: str, data: bytes) -> StoredFile:
        """Validate and save an upload; return where it was stored."""
        safe = secure_filename(filename)
        ext = os.path.splitext(safe)[1].lower()
        if ext not in self.allowed_extensions:
            raise NotAllowed(f"file type {ext or '(none)'} is not allowed")
        if len(data) > self.max_bytes:
            raise FileTooLarge(f"{len(data)} bytes exceeds the limit of {self.max_bytes}")
        name = self._unique_name(self.folder_for(user_id), safe)
        self.storage.save(name, io.BytesIO(data))
        return StoredFile(name=name, size=len(data), url=self.storage.url(name))

    def download(self, user_id: int, name: str) -> bytes:
        """Read back one of the user's files; ``name`` comes from the request."""
        return self.storage.read(f"{self.folder_for(user_id)}/{name}")
