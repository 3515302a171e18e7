"""Records that landed in the local store but not in the remote: one empty marker per record.

A marker is written before the record lands, so a run killed in between leaves a marker without
a record (dropped by an upload an hour later: until then its own run may still be landing it),
never a record nobody will upload.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path


class Pending:
    """`<store>/pending/<kind>/<key>`; removed once the record is in the remote."""

    def __init__(self, store_root: Path) -> None:
        self.root = store_root / "pending"

    def add(self, kind: str, key: str) -> None:
        path = self.root / kind / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def remove(self, kind: str, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.root / kind / key).unlink()

    def age_s(self, kind: str, key: str) -> float:
        try:
            return time.time() - (self.root / kind / key).stat().st_mtime
        except FileNotFoundError:
            return 0.0

    def items(self) -> list[tuple[str, str]]:
        if not self.root.is_dir():
            return []
        return [(kind.name, marker.name) for kind in sorted(self.root.iterdir()) if kind.is_dir()
                for marker in sorted(kind.iterdir())]

    def __len__(self) -> int:
        return len(self.items())

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[bool]:
        """True for the one process that may upload now; others skip (conditional puts would
        make a duplicate harmless, but not free)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


def local_keys(records_root: Path, kind: str) -> list[str]:
    """Every key of `kind` in a local store's records directory."""
    base = records_root / kind
    if not base.is_dir():
        return []
    return sorted(name[:-5] for shard in os.scandir(base) if shard.is_dir()
                  for name in os.listdir(shard.path) if name.endswith(".json"))
