"""A dollar budget shared by every worker process of one doit invocation.

Spent plus in-flight (reserved) dollars live in one small JSON file under an flock; an attempt
reserves its estimated cost before it starts and settles the real cost when it ends.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from evaluator.store import disk_full, is_full, path_named


class Budget:
    def __init__(self, path: Path, cap_usd: float | None) -> None:
        self.path = path
        self.cap_usd = cap_usd
        path.parent.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = os.read(fd, 1 << 16)
            state = {"spent": 0.0, "in_flight": 0.0, "refused": 0, "errors": 0,
                     **(json.loads(raw) if raw else {})}
            yield state
            # Written over the old bytes, then cut: a full disk that refuses the write leaves
            # the old state, never an empty file (which would forget what was spent).
            data = json.dumps(state).encode()
            try:
                os.pwrite(fd, data, 0)
            except OSError as exc:
                if is_full(exc):  # one line, worded as every other full disk of the store's
                    raise disk_full(f"the store's budget file {path_named(self.path)}",
                                    self.path.parent, len(data)) from None
                raise
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)

    def reserve(self, estimate_usd: float) -> bool:
        """Reserve `estimate_usd`; False (and nothing reserved) when the cap would be passed."""
        with self._locked() as s:
            if self.cap_usd is not None and s["spent"] + s["in_flight"] + estimate_usd > self.cap_usd:
                s["refused"] += 1
                return False
            s["in_flight"] += estimate_usd
            return True

    def settle(self, estimate_usd: float, actual_usd: float, *, error: bool = False) -> None:
        with self._locked() as s:
            s["in_flight"] = max(0.0, s["in_flight"] - estimate_usd)
            s["spent"] += actual_usd
            s["errors"] += int(error)

    def state(self) -> dict[str, float]:
        """What the file holds (read only: the summary of a run on a full disk still reads)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            raw = b""
        else:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)  # never half of a write
                raw = os.read(fd, 1 << 16)
            finally:
                os.close(fd)
        return {"spent": 0.0, "in_flight": 0.0, "refused": 0, "errors": 0,
                **(json.loads(raw) if raw else {})}
