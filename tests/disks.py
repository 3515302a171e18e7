"""A small real disk for tests of a full one: a tmpfs mounted under a test's folder (root only),
and a filler that leaves it with a given number of bytes free."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers import unavailable


@contextmanager
def small_disk(mount: Path, size: str = "4m") -> Iterator[Path]:
    """A tmpfs of `size` at `mount` (made), unmounted afterwards."""
    mount.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        unavailable("mounting a tmpfs needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(mount: Path, leave: int = 0) -> Path:
    """Fill the disk at `mount` up to `leave` bytes free; the filler, to unlink for room."""
    filler = mount / "filler"
    free = shutil.disk_usage(mount).free
    subprocess.run(["fallocate", "-l", str(max(free - leave, 4096)), str(filler)], check=True)
    return filler
