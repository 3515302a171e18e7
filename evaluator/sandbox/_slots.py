"""A bound on sandboxes in use across every process on this machine that shares a store."""

from __future__ import annotations

import fcntl
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


class Slots:
    """N lock files; holding an flock on one is holding a slot.

    The kernel drops an flock when its process dies, so a SIGKILLed worker never leaks a slot.
    """

    def __init__(self, directory: Path, limit: int, name: str = "sandbox") -> None:
        if limit < 1:
            raise ValueError(f"a {name} limit must be at least 1, got {limit}")
        directory.mkdir(parents=True, exist_ok=True)
        self._paths = [directory / f"{name}-{i}.lock" for i in range(limit)]

    @contextmanager
    def acquire(self, on_wait: Callable[[], None] | None = None,
                poll_s: float = 0.05) -> Iterator[None]:
        """Hold a slot; `on_wait` is called once if none is free at first (the caller waits)."""
        while (release := self.try_take()) is None:
            if on_wait is not None:
                on_wait()
                on_wait = None
            time.sleep(poll_s)
        try:
            yield
        finally:
            release()

    def try_take(self) -> Callable[[], None] | None:
        """A free slot, held until the returned release is called; None when all are held."""
        for i in random.sample(range(len(self._paths)), len(self._paths)):
            fd = os.open(self._paths[i], os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue

            def release(fd: int = fd) -> None:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)

            return release
        return None
