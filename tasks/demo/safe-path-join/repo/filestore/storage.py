"""Files on local disk, addressed by relative names."""

from __future__ import annotations

import os
import tempfile
from typing import BinaryIO, List, Tuple, Union
from urllib.parse import quote

from .errors import FileStoreError
from .paths import PathLike, clean_relative_path, safe_join

Data = Union[bytes, bytearray, BinaryIO]


class LocalStorage:
    """Store files below ``root``.

    Names are relative, ``/``-separated and untrusted: every method maps them
    through :func:`~filestore.paths.safe_join`, so a name can never reach a
    file outside ``root``.

    :param root: the storage directory; created if missing.
    :param base_url: URL prefix under which the web server exposes ``root``.
    """

    chunk_size = 64 * 1024

    def __init__(self, root: PathLike, base_url: str = "/media/") -> None:
        self.root = os.path.abspath(os.fspath(root))
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        os.makedirs(self.root, exist_ok=True)

    def path(self, name: str) -> str:
        """The absolute filesystem path for ``name``."""
        return safe_join(self.root, name)

    def exists(self, name: str) -> bool:
        return os.path.exists(self.path(name))

    def size(self, name: str) -> int:
        return os.path.getsize(self.path(name))

    def save(self, name: str, data: Data, *, overwrite: bool = False) -> str:
        """Write ``data`` to ``name`` atomically; return the cleaned name.

        The content is written to a temporary file in the target directory
        and moved into place, so readers never see a half-written file.
        """
        target = self.path(name)
        if os.path.isdir(target):
            raise FileStoreError(f"{name!r} is a directory")
        if not overwrite and os.path.exists(target):
            raise FileExistsError(name)
        directory = os.path.dirname(target)
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".upload-")
        try:
            with os.fdopen(fd, "wb") as out:
                if isinstance(data, (bytes, bytearray)):
                    out.write(data)
                else:
                    while True:
                        chunk = data.read(self.chunk_size)
                        if not chunk:
                            break
                        out.write(chunk)
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return clean_relative_path(name)

    def read(self, name: str) -> bytes:
        with open(self.path(name), "rb") as fh:
            return fh.read()

    def open(self, name: str) -> BinaryIO:
        return open(self.path(name), "rb")

    def delete(self, name: str) -> bool:
        """Delete ``name``; return ``False`` if it did not exist."""
        target = self.path(name)
        if target == self.root:
            raise FileStoreError("refusing to delete the storage root")
        try:
            os.unlink(target)
        except FileNotFoundError:
            return False
        return True

    def listdir(self, name: str = "") -> Tuple[List[str], List[str]]:
        """Return ``(directories, files)`` directly inside ``name``, sorted."""
        directory = self.path(name)
        dirs, files = [], []
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith(".upload-"):
                    continue
                (dirs if entry.is_dir() else files).append(entry.name)
        return sorted(dirs), sorted(files)

    def url(self, name: str) -> str:
        return self.base_url + quote(clean_relative_path(name))
