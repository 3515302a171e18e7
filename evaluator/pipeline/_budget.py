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
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(state).encode())
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
        with self._locked() as s:
            return dict(s)
