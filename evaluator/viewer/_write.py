"""Writing the site to disk: each page only when what it is made from changed.

A report over 100,000 attempts has 100,000 attempt pages and the files beside them; rendering
all of them on every `doit report` took most of half an hour and rewrote gigabytes. Records
and blobs are immutable under their keys, so a page's inputs are named by a stamp: the
viewer's own code, the row the report counts for it (which holds its records' keys and error
count), and its task's description. A page whose stamp is in the folder's manifest, and whose
file is there, is not rendered again. The index, the grid, the stylesheet and the plots are
rendered every time and written only when their bytes differ.

Pages are rendered by a pool of forked processes when there are many, each file written
atomically (a reader sees a whole old file or a whole new one), the manifest last. Anything
in the folder that the site no longer has (a removed attempt, a foreign file) is removed, so
the folder always holds exactly what a full render would.
"""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evaluator.hashing import hash_bytes, hash_json, hash_tree

MANIFEST = ".manifest.json"
_FORMAT = 1
# Below this many pages to render, forking a pool costs more than it saves.
_POOL_FROM = 64

Unit = tuple[str, str, Callable[[], dict[str, bytes]]]  # (page, stamp, render: path -> bytes)


class Rendered(dict[str, bytes]):
    """A unit's files, and what its render found wrong (a blob the page needed and the store
    lacks): said by the caller, and the page is rendered again next time rather than kept."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.notes: list[str] = []


@functools.cache
def viewer_version() -> str:
    """The viewer's own code and templates: a change re-renders every page once."""
    return hash_tree(Path(__file__).resolve().parent)[:32]


def stamp(*parts: Any) -> str:
    return hash_json([viewer_version(), *parts])[:32]


def write_site(out_dir: Path, units: list[Unit], always: dict[str, bytes],
               jobs: int | None = None, notes: list[str] | None = None) -> dict[str, int]:
    """Bring `out_dir` to `units` (pages rendered only when their stamp moved) plus `always`
    (written when their bytes differ); returns how many pages were rendered and kept. What
    the renders noted (`Rendered.notes`) is added to `notes`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    old = _read_manifest(out_dir)
    todo = [u for u in units if not _current(out_dir, old.get(u[0]), u[1])]
    redo = {u[0] for u in todo}
    manifest = {page: old[page] for page, _, _ in units if page not in redo}
    for page, files, stamp_, noted in _render_all(out_dir, todo, jobs):
        manifest[page] = ["" if noted else stamp_, files]  # a page with a note is not done
        if notes is not None:
            notes.extend(noted)
    for path, data in always.items():
        h = hash_bytes(data)[:32]
        if (old.get(path) or [None])[0] != h or not (out_dir / path).is_file():
            _put(out_dir / path, data)
        manifest[path] = [h, [path]]
    keep = {f for _, files in manifest.values() for f in files} | {MANIFEST}
    _remove_others(out_dir, keep)
    _put(out_dir / MANIFEST, json.dumps({"format": _FORMAT, "pages": manifest},
                                        sort_keys=True).encode())
    return {"rendered": len(todo), "kept": len(units) - len(todo)}


def _current(out_dir: Path, entry: Any, stamp_: str) -> bool:
    return (isinstance(entry, list) and len(entry) == 2 and entry[0] == stamp_
            and isinstance(entry[1], list) and bool(entry[1])
            and os.path.isfile(out_dir / entry[1][0]))


def _render_all(out_dir: Path, todo: list[Unit],
                jobs: int | None) -> Iterator[tuple[str, list[str], str, list[str]]]:
    jobs = jobs or os.cpu_count() or 1
    if len(todo) < _POOL_FROM or jobs < 2:
        yield from (_render_one(out_dir, u) for u in todo)
        return
    global _PENDING  # the forked workers find the units here, by position
    _PENDING = (out_dir, todo)
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            yield from pool.imap_unordered(_render_at, range(len(todo)), chunksize=32)
    finally:
        _PENDING = None


_PENDING: tuple[Path, list[Unit]] | None = None


def _render_at(i: int) -> tuple[str, list[str], str, list[str]]:
    assert _PENDING is not None
    out_dir, todo = _PENDING
    return _render_one(out_dir, todo[i])


def _render_one(out_dir: Path, unit: Unit) -> tuple[str, list[str], str, list[str]]:
    page, stamp_, render = unit
    files = render()
    for path, data in files.items():
        _put(out_dir / path, data)
    # The page first: whether a unit is current is judged by its first file.
    return (page, sorted(files, key=lambda p: (p != page, p)), stamp_,
            list(getattr(files, "notes", ())))


def _read_manifest(out_dir: Path) -> dict[str, Any]:
    try:
        raw = json.loads((out_dir / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return {}
    pages = raw.get("pages") if isinstance(raw, dict) and raw.get("format") == _FORMAT else None
    return pages if isinstance(pages, dict) else {}


def _remove_others(out_dir: Path, keep: set[str]) -> None:
    """Remove every file under `out_dir` that is not in `keep`, then the folders left empty."""
    for top, _dirs, files in os.walk(out_dir, topdown=False):
        rel = os.path.relpath(top, out_dir)
        for name in files:
            path = name if rel == "." else f"{rel}/{name}"
            if path not in keep:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(top, name))
        if rel != ".":
            with contextlib.suppress(OSError):
                os.rmdir(top)  # only when empty


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".w-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
