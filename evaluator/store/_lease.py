"""Leases: one process at a time runs a target, so two runs on one store never pay for one key.

Two `doit eval` runs on the same store (a person and CI, two CI jobs) both find the same
attempts missing. The record is create-once, so only one would land, but both would have paid
the model. Before a target runs, its runner takes the target's lease: an flock on a file named
by its key. A second runner that finds it held waits, then finds the record landed and runs
nothing; if the holder died without a record (the kernel drops the flock with the process), the
waiter runs it. The file is removed once the record has landed: whoever opens it after that
checks the record first and never takes the lease.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path


class Leases:
    """The leases of one store, under `<store>/leases/<kind>/`."""

    def __init__(self, root: Path) -> None:
        self.root = root / "leases"

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / key

    @contextlib.contextmanager
    def hold(self, kind: str, key: str, landed: Callable[[], bool],
             waiting: Callable[[str], None] = lambda holder: None) -> Iterator[None]:
        """Hold the lease of (kind, key) for the block; `waiting(holder)` is told who holds
        it before this waits for it. `landed()` says whether the target's record is stored:
        once it is, the lease's file goes (see the module's docstring)."""
        path = self._path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                waiting(f.read().strip() or "another process")
                fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            f.truncate()
            f.write(f"pid {os.getpid()} on {socket.gethostname()} since "
                    f"{time.strftime('%H:%M:%S')}")
            f.flush()
            try:
                yield
            finally:
                if landed():
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                fcntl.flock(f, fcntl.LOCK_UN)
