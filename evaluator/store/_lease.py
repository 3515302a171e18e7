"""Leases: one process at a time runs a target, so two runs on one store never pay for one key.

Two `doit eval` runs on the same store (a person and CI, two CI jobs) both find the same
attempts missing. The record is create-once, so only one would land, but both would have paid
the model. Before a target runs, its runner takes the target's lease: an flock on a file named
by its key. A second runner that finds it held waits, then finds the record landed and runs
nothing; if the holder died without a record (the kernel drops the flock with the process), the
waiter runs it. The file is removed once the record has landed: whoever opens it after that
checks the record first and never takes the lease.

`Leases` is the seam the store holds: this flock is one backend, `_remote_lease` wraps it with a
lease held through the team's remote for runs on other machines.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from evaluator.store._files import disk_full, is_full, path_named

Landed = Callable[[], bool]
Waiting = Callable[[str], None]



class Leases(Protocol):
    def hold(self, kind: str, key: str, landed: Landed,
             waiting: Waiting = ...) -> AbstractContextManager[None]:
        """Hold the lease of (kind, key) for the block. `waiting(holder)` is told who holds it
        before this waits; `landed()` says whether the target's record is in this store, and
        the caller checks the record again inside the block (it may have landed meanwhile)."""
        ...


class FileLeases:
    """The leases of one store, under `<store>/leases/<kind>/`: flocks, for runs on one machine."""

    def __init__(self, root: Path) -> None:
        self.root = root / "leases"

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / key

    @contextlib.contextmanager
    def hold(self, kind: str, key: str, landed: Landed,
             waiting: Waiting = lambda holder: None) -> Iterator[None]:
        """Hold the lease of (kind, key) for the block; `waiting(holder)` is told who holds
        it before this waits for it. `landed()` says whether the target's record is stored:
        once it is, the lease's file goes (see the module's docstring)."""
        path = self._path(kind, key)
        holder = (f"pid {os.getpid()} on {socket.gethostname()} since "
                  f"{time.strftime('%H:%M:%S')}").encode()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            f = open(path, "a+")  # noqa: SIM115 (closed by the with below)
        except OSError as exc:  # a full disk: one line, and the target does not start
            if is_full(exc):
                raise disk_full(f"the store at {path_named(self.root.parent)}", path.parent,
                                len(holder)) from None
            raise
        with f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                waiting(f.read().strip() or "another process")
                fcntl.flock(f, fcntl.LOCK_EX)
            try:  # unbuffered: a write the disk refused leaves nothing to flush at close
                os.ftruncate(f.fileno(), 0)
                os.pwrite(f.fileno(), holder, 0)
            except OSError as exc:
                if not is_full(exc):
                    raise  # a full disk: the flock is the lease; the name only tells waiters
            try:
                yield
            finally:
                if landed():
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                fcntl.flock(f, fcntl.LOCK_UN)
