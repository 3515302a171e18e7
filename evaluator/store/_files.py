"""Atomic file writes: a killed process never leaves half a file where a reader would look."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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


def create_exclusive(path: Path, data: bytes, tmp_dir: Path) -> bool:
    """Land `data` at `path` only if nothing is there; True if this call landed it.

    A hard link is atomic and fails when the name exists, so of two writers racing for one key
    exactly one wins and the other sees False; readers see the whole file or none.
    """
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


def create_many(items: list[tuple[Path, bytes]], tmp_dir: Path) -> list[bool]:
    """`create_exclusive` for many files at once, with one sync instead of two per file: every
    file's bytes reach the disk before any of them gets its name, so a crash leaves whole files
    or none, as one at a time would. For bulk landings (imports, a remote's records)."""
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


def replace_atomic(path: Path, data: bytes, tmp_dir: Path) -> None:
    """Write `data` at `path`, replacing what is there in one step (for derived files only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(tmp_dir, data)
    os.replace(tmp, path)
    _fsync_dir(path.parent)
