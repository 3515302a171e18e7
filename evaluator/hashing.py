"""Content hashes and canonical JSON: the only way keys are made, so two machines agree on them."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Mapping
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


def canonical_items(value: Mapping[str, Any]) -> dict[str, bytes]:
    """Each field of a JSON object as canonical JSON, serialized once: the parts `hash_parts`
    assembles, so a key made of a large object plus a few fields serializes the object once."""
    return {k: canonical_json(v) for k, v in value.items()}


def join_items(items: Mapping[str, bytes]) -> bytes:
    """The canonical JSON of the object whose fields are `items` (canonical JSON each):
    `join_items(canonical_items(v)) == canonical_json(v)` for every JSON object `v`."""
    return b"{" + b",".join(_name(k) + b":" + items[k] for k in sorted(items)) + b"}"


def hash_parts(items: Mapping[str, bytes]) -> str:
    """`hash_json` of the object whose fields are `items` (canonical JSON each)."""
    return hash_bytes(join_items(items))


def keyer(items: Mapping[str, bytes], *fields: str) -> Callable[..., str]:
    """`(*values) -> hash_json({**object, **dict(zip(fields, values))})` for the object of
    `items`: its bytes before the first of `fields` are hashed once, so each key hashes only
    the values and what lies between and after them (a grade key per stored attempt, an
    attempt key per sample, at 100,000 attempts, whatever the size of the task's spec)."""
    names = sorted({*items, *fields})
    segments, current, first = [], b"{", True
    for name in names:
        current += (b"" if first else b",") + _name(name) + b":"
        first = False
        if name in fields:
            segments.append((current, name))
            current = b""
        else:
            current += items[name]
    order = {f: i for i, f in enumerate(fields)}
    rest = tuple((order[name], seg) for seg, name in segments)  # (which value, bytes before it)
    return _Keyer(segments[0][0], rest, current + b"}")


class _Keyer:
    """What `keyer` returns. A class, not a closure, so that it pickles: a GradeSpec caches
    one (`attempt_keyer`) and the Ray executor ships specs to its workers; the hasher of the
    leading bytes is made again from those bytes on the other side."""

    __slots__ = ("_first", "_head", "_rest", "_tail")

    def __init__(self, first: bytes, rest: tuple[tuple[int, bytes], ...], tail: bytes) -> None:
        self._first, self._rest, self._tail = first, rest, tail
        self._head = blake3.blake3(first)

    def __reduce__(self) -> tuple[Any, ...]:
        return _Keyer, (self._first, self._rest, self._tail)

    def __call__(self, *values: Any) -> str:
        h = self._head.copy()
        for n, (which, before) in enumerate(self._rest):
            if n:
                h.update(before)
            h.update(canonical_json(values[which]))
        h.update(self._tail)
        return h.hexdigest()


@functools.lru_cache(maxsize=4096)
def _name(key: str) -> bytes:
    return json.dumps(key, ensure_ascii=False).encode("utf-8")


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
    "canonical_items", "canonical_json", "hash_bytes", "hash_file", "hash_json", "hash_parts",
    "hash_tree", "join_items", "keyer", "tree_file_strs", "tree_files",
]
