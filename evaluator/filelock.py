"""One process on this machine at a time in a block, the others waiting: an flock on a file.

The kernel drops an flock when the process holding it dies, so a SIGKILLed holder never leaves
the others waiting for ever, and nothing has to be cleaned up after it.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive flock on `path` for the block, waiting while another process holds it.

    The file (and its folder) is made when missing and left in place: removing it would let a
    process that opened the old file and one that opens a new one both hold "the" lock.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


__all__ = ["exclusive"]
