"""The harness's exact build, by content: provenance in every record, never part of a key.

Two checkouts with the same source hash ran the same code with the same pins; records say which
build made them (`harness.source`), so a result can always be traced to its code even though a
refactor, which moves this hash, leaves every key where it was.
"""

from __future__ import annotations

import functools
import os

from evaluator.hashing import hash_file, hash_json
from evaluator.version._versions import PACKAGE

_LOCK = PACKAGE.parent / "requirements.lock"


@functools.cache
def source_hash() -> str:
    """blake3 (32 hex) of every file of the `evaluator` package (not bytecode) and of
    requirements.lock, by path and content."""
    entries: list[list[str | None]] = []
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            entries.append([os.path.relpath(path, PACKAGE.parent), hash_file(path)])
    entries.append(["requirements.lock", hash_file(_LOCK) if _LOCK.exists() else None])
    return hash_json(sorted(entries, key=lambda e: str(e[0])))[:32]


def harness_build() -> dict[str, str]:
    """What the store stamps on every record it lands (`harness`)."""
    return {"source": source_hash()}


__all__ = ["harness_build", "source_hash"]
