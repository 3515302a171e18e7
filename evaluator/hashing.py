"""Content hashes and canonical JSON: the only way keys are made, so two machines agree on them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import blake3

_CHUNK = 1 << 20


def canonical_json(value: Any) -> bytes:
    """Serialise `value` so that equal data always gives equal bytes (sorted keys, no spaces)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def hash_bytes(data: bytes) -> str:
    """Hex blake3 of `data`."""
    return blake3.blake3(data).hexdigest()


def hash_json(value: Any) -> str:
    """Hex blake3 of the canonical JSON of `value`: the form of every target key."""
    return hash_bytes(canonical_json(value))


def hash_file(path: str | os.PathLike[str]) -> str:
    """Hex blake3 of a file's bytes, read in chunks."""
    h = blake3.blake3()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def hash_tree(root: str | os.PathLike[str]) -> str:
    """Hex blake3 over every file below `root`: relative paths, modes' exec bit, and contents.

    Caches and bytecode are left out, so running a project's tests does not change its hash.
    """
    root = Path(root)
    entries = []
    for path in tree_files(root):
        rel = path.relative_to(root).as_posix()
        executable = os.access(path, os.X_OK)
        entries.append([rel, executable, hash_file(path)])
    return hash_json(entries)


_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


def tree_files(root: str | os.PathLike[str]) -> list[Path]:
    """Every file below `root` that counts for its hash, sorted."""
    return [Path(p) for p in tree_file_strs(root)]


def tree_file_strs(root: str | os.PathLike[str]) -> list[str]:
    """`tree_files` as plain strings (no pathlib: this runs on every no-op lock check)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        out.extend(f"{dirpath}/{name}" for name in filenames if not name.endswith(".pyc"))
    return sorted(out)


__all__ = [
    "canonical_json", "hash_bytes", "hash_file", "hash_json", "hash_tree", "tree_file_strs", "tree_files",
]
