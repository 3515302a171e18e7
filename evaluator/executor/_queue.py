"""Queue age: how long the oldest attempt that waits for a sandbox has waited.

An attempt handed to an executor leaves a mark (a file named by its key, holding when it began
to wait) under `<store>/queue/<invocation>/` until its sandbox work starts; the progress line
and `GET /v1/runs/{id}` read the marks. A killed run leaves marks behind: readers take only
the current invocation's, and a new run of the same invocation name clears its folder.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path


class QueueMarks:
    def __init__(self, store_root: Path, invocation: str) -> None:
        self.dir = store_root / "queue" / invocation

    def wait(self, key: str) -> None:
        tmp = self.dir / f".{key}.{os.getpid()}"
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            tmp.write_text(f"{time.time():.3f}")
            os.replace(tmp, self.dir / key)
        except OSError:  # a full disk: the mark only feeds the progress line, never the work
            with contextlib.suppress(OSError):
                tmp.unlink()

    def start(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.dir / key)

    def waits(self) -> dict[str, float]:
        """key -> seconds it has waited so far."""
        now, found = time.time(), {}
        try:
            entries = list(os.scandir(self.dir))
        except FileNotFoundError:
            return {}
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                found[entry.name] = max(0.0, now - float(Path(entry.path).read_text()))
            except (OSError, ValueError):
                continue  # started (removed) while read, or half written
        return found

    def oldest(self) -> float:
        return max(self.waits().values(), default=0.0)


def waiting_since(store_root: Path, since: float) -> dict[str, float]:
    """key -> when it began to wait, over every invocation's marks made at `since` or later
    (older ones are a killed run's leftovers)."""
    found: dict[str, float] = {}
    for mark in (store_root / "queue").glob("*/*"):
        try:
            began = float(mark.read_text())
        except (OSError, ValueError):
            continue
        if began >= since and not mark.name.startswith("."):
            found[mark.name] = min(began, found.get(mark.name, began))
    return found
