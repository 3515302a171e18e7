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
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from evaluator.hashing import hash_bytes, hash_json, hash_tree

MANIFEST = ".manifest.json"
# 3: each page's stamp and files in one string (see `_Manifest`).
_FORMAT = 3
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


def write_site(out_dir: Path, units: Iterable[Unit], always: dict[str, bytes],
               jobs: int | None = None, notes: list[str] | None = None) -> dict[str, int]:
    """Bring `out_dir` to `units` (pages rendered only when their stamp moved) plus `always`
    (written when their bytes differ); returns how many pages were rendered and kept. What
    the renders noted (`Rendered.notes`) is added to `notes`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    old = _Manifest.read(out_dir)
    # One pass over the units, which may be made one at a time (100,000 of them held in a
    # list were 80 MB of a report's memory): a current page keeps its entry, the rest are
    # rendered below.
    new, todo, total = _Manifest(), [], 0
    for unit in units:
        total += 1
        if old.current(out_dir, unit[0], unit[1]):
            new.pages[unit[0]] = old.pages[unit[0]]
        else:
            new.pages.pop(unit[0], None)  # a page twice: the later unit decides, as before
            todo.append(unit)
    for path, data in always.items():
        h = hash_bytes(data)[:32]
        if not old.current(out_dir, path, h):
            _put(out_dir / path, data)
        new.pages[path] = f"{h}\t"
    del old
    for page, files, stamp_, noted in _render_all(out_dir, todo, jobs):
        new.add(page, "" if noted else stamp_, files)  # a page with a note is not done
        if notes is not None:
            notes.extend(noted)
    _remove_others(out_dir, new)
    _put_chunks(out_dir / MANIFEST, new.dump())
    return {"rendered": len(todo), "kept": total - len(todo)}


class _Manifest:
    """Which files each page of the folder was made of, under which stamp.

    A page `a/b.html` and the files beside it under `a/b/` are kept as one string, the page's
    stamp and the files' names relative to `a/b/` ("" for the page itself), tab-separated: at
    100,000 attempt pages of six files each, lists of full paths held 600,000 strings (200 MB)
    and a string per page holds 40 MB, read straight from the JSON. A file outside its
    page's folder keeps its path, marked by a leading "/". What the folder may hold is asked
    file by file (`owns`), never gathered in a set.
    """

    def __init__(self, pages: dict[str, str] | None = None) -> None:
        self.pages = pages or {}
        self._outside: list[list[str]] | None = None

    @classmethod
    def read(cls, out_dir: Path) -> _Manifest:
        try:
            # As text: json.loads of bytes decodes them to a second copy first (25 MB more
            # at 100,000 pages).
            raw = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls()
        pages = raw.get("pages") if isinstance(raw, dict) and raw.get("format") == _FORMAT \
            else None
        if not isinstance(pages, dict):
            return cls()
        return cls({page: e for page, e in pages.items() if isinstance(e, str)})

    def current(self, out_dir: Path, page: str, stamp_: str) -> bool:
        """`page` was made under `stamp_` and its file is there."""
        entry = self.pages.get(page, "").split("\t", 2)
        return (len(entry) > 1 and entry[0] == stamp_ and entry[1] == ""
                and os.path.isfile(out_dir / page))

    def add(self, page: str, stamp_: str, files: list[str]) -> None:
        stem = page.removesuffix(".html") + "/"
        names = ("" if f == page else f[len(stem):] if f.startswith(stem) else "/" + f
                 for f in files)
        self.pages[page] = "\t".join([stamp_, *sorted(names)])

    def owns(self, path: str) -> bool:
        """`path` (relative to the folder) is a file of some page."""
        entry = self.pages.get(path)
        if entry is not None and "" in entry.split("\t")[1:]:
            return True
        cut = path.find("/")
        while cut != -1:
            entry = self.pages.get(path[:cut] + ".html")
            if entry is not None and path[cut + 1:] in entry.split("\t")[1:]:
                return True
            cut = path.find("/", cut + 1)
        if self._outside is None:  # rare (no page has such files today): gathered on a miss
            self._outside = [e.split("\t")[1:] for e in self.pages.values() if "\t/" in e]
        return any("/" + path in names for names in self._outside)

    def dump(self) -> Iterator[bytes]:
        """The manifest's JSON in pieces (at 100,000 pages the whole text, and its bytes,
        were 50 MB more at once); the same bytes as `json.dumps(..., sort_keys=True)`."""
        yield b'{"format": %d, "pages": {' % _FORMAT
        for i, page in enumerate(sorted(self.pages)):
            yield (", " if i else "").encode() + json.dumps(page).encode() + b": " + \
                json.dumps(self.pages[page]).encode()
        yield b"}}"


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


def _remove_others(out_dir: Path, manifest: _Manifest) -> None:
    """Remove every file under `out_dir` that no page of `manifest` owns (a removed attempt's,
    a foreign file), then the folders left empty: the folder holds what a full render would."""
    for top, _dirs, files in os.walk(out_dir, topdown=False):
        rel = os.path.relpath(top, out_dir)
        for name in files:
            path = name if rel == "." else f"{rel}/{name}"
            if path != MANIFEST and not manifest.owns(path):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(top, name))
        if rel != ".":
            with contextlib.suppress(OSError):
                os.rmdir(top)  # only when empty


def _put(path: Path, data: bytes) -> None:
    _put_chunks(path, (data,))


def _put_chunks(path: Path, chunks: Iterable[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".w-")
    try:
        with os.fdopen(fd, "wb", buffering=1 << 16) as f:
            for chunk in chunks:
                f.write(chunk)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
