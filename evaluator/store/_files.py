"""Atomic file writes: a killed process never leaves half a file where a reader would look, and
a full disk is one `DiskFullError` naming whose disk and how much was being written."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evaluator.errors import DiskFullError

_FULL = (errno.ENOSPC, errno.EDQUOT)


def free_bytes(path: Path) -> int:
    """Bytes an unprivileged writer may still use on the file system of `path`."""
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def path_named(path: Path) -> str:
    """`path` as a full disk's line names it: as given, and where it really is when a link leads
    elsewhere (a store linked onto another disk: the disk to free is the far one)."""
    real = os.path.realpath(path)
    return str(path) if real == os.path.abspath(path) else f"{path} (resolved: {real})"


def is_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in _FULL


def disk_full(owner: str, where: Path, size: int) -> DiskFullError:
    """The one line a full disk gives: whose disk, how much was being written, how much is free
    (instead of a raw OSError traceback in every target)."""
    try:
        free = f"{free_bytes(where):,} bytes free there"
    except OSError:
        free = "free space unknown"
    return DiskFullError(f"{owner} is out of space: writing {size:,} bytes failed ({free}); "
                         "free space on its disk, or move it to a larger one")


@contextmanager
def _space(owner: str | None, where: Path, size: int) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        if is_full(exc):
            raise disk_full(owner or str(where), where, size) from None
        raise


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(tmp_dir: Path, data: bytes) -> Path:
    fd, name = tempfile.mkstemp(dir=tmp_dir, prefix=".w-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        os.unlink(name)
        raise
    return Path(name)


def create_exclusive(path: Path, data: bytes, tmp_dir: Path, owner: str | None = None) -> bool:
    """Land `data` at `path` only if nothing is there; True if this call landed it.

    A hard link is atomic and fails when the name exists, so of two writers racing for one key
    exactly one wins and the other sees False; readers see the whole file or none. `owner` (say,
    "the store at .eval") is what a full disk's error names.
    """
    with _space(owner, tmp_dir, len(data)):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _write_temp(tmp_dir, data)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        finally:
            os.unlink(tmp)
        _fsync_dir(path.parent)
    return True


def create_many(items: list[tuple[Path, bytes]], tmp_dir: Path,
                owner: str | None = None) -> list[bool]:
    """`create_exclusive` for many files at once, with one sync instead of two per file: every
    file's bytes reach the disk before any of them gets its name, so a crash leaves whole files
    or none, as one at a time would. For bulk landings (imports, a remote's records)."""
    with _space(owner, tmp_dir, sum(len(d) for _, d in items)):
        written: list[tuple[str, Path]] = []
        try:
            for path, data in items:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, name = tempfile.mkstemp(dir=tmp_dir, prefix=".w-")
                written.append((name, path))
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
            os.sync()  # the data first (Linux's sync waits for the writes it starts)
            landed = []
            for name, path in written:
                try:
                    os.link(name, path)
                    landed.append(True)
                except FileExistsError:
                    landed.append(False)
            os.sync()  # then the names
            return landed
        finally:
            for name, _ in written:
                os.unlink(name)


def replace_atomic(path: Path, data: bytes, tmp_dir: Path, owner: str | None = None) -> None:
    """Write `data` at `path`, replacing what is there in one step (for derived files only)."""
    with _space(owner, tmp_dir, len(data)):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _write_temp(tmp_dir, data)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
