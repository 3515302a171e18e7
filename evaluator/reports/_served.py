"""What a long-lived process (the HTTP API) serves of a task set, made once per change.

A report's rows over 100,000 attempts take seconds to gather (the plan, one pass over the
index); a leaderboard or a comparison from those rows takes milliseconds. So each task set's
rows are kept with a fingerprint of everything they were made from: the store's generations of
the record kinds they read, and the size, time and inode of every input file (the set's task
folders, its lock, the eval config and price tables, the agents). A request whose fingerprint
matches is answered from the kept rows; any change makes the next request gather them again.
The set's task folder (8,000 files at 2,000 tasks) is looked at again only when a watch on it
(`TreeWatch`, inotify) says something under it changed: a request at 100,000 attempts then costs
the store's generations, a stat of the agents, lock and configs, and a lookup.
Answers are kept too, per question: a comparison also reads the store's looks, so it is kept
per look generation as well.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.errors import StaleLockError
from evaluator.reports._collect import Collected
from evaluator.reports._inputs import Inputs
from evaluator.reports._sources import Sources
from evaluator.reports._watch import TreeWatch
from evaluator.store import Store

# The record kinds a report's rows are read from (`open_inputs`, `collect`).
KINDS = ("attempt", "result", "grade", "verdict", "exploit")


@dataclass
class _Entry:
    fingerprint: tuple[Any, ...]
    loaded: tuple[Inputs, Collected] | None
    error: StaleLockError | None
    answers: dict[tuple[Any, ...], Any] = field(default_factory=dict)


class Served:
    """Rows and answers per task set and sources, kept while their fingerprint holds."""

    def __init__(self, load: Callable[[str, Sources], tuple[Inputs, Collected]]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, Sources], _Entry] = {}
        self._stores: dict[Sources, Store] = {}
        # Each task folder's watch and the stat of its files when the watch was last set.
        self._tasks: dict[Path, tuple[TreeWatch, tuple[Any, ...]]] = {}

    def answer(self, task_set: str, sources: Sources, question: tuple[Any, ...],
               make: Callable[[Inputs, Collected], Any], *, kinds: tuple[str, ...] = ()) -> Any:
        """`make(inputs, collected)` for `question`, kept until the set's inputs, its records or
        the records of `kinds` change; a stale lock or store raises its StaleLockError."""
        with self._lock:
            store = self._stores.get(sources) or self._stores.setdefault(
                sources, sources.open_store())
            entry = self._entry(task_set, sources, store)
            if entry.error is not None:
                raise entry.error
            assert entry.loaded is not None
            asked = (*question, store.index.generation(kinds) if kinds else ())
            if asked not in entry.answers:
                entry.answers[asked] = make(*entry.loaded)
                if kinds:  # what `make` recorded (a look) is part of what it answered
                    entry.answers[(*question, store.index.generation(kinds))] = \
                        entry.answers[asked]
            return entry.answers[asked]

    def _entry(self, task_set: str, sources: Sources, store: Store) -> _Entry:
        now = self._fingerprint(task_set, sources, store)
        entry = self._entries.get((task_set, sources))
        if entry is None or entry.fingerprint != now:
            try:
                entry = _Entry(now, self._load(task_set, sources), None)
            except StaleLockError as exc:
                entry = _Entry(now, None, exc)
            self._entries[(task_set, sources)] = entry
        return entry

    def _fingerprint(self, task_set: str, sources: Sources, store: Store) -> tuple[Any, ...]:
        """`fingerprint`, the set's task folder looked at again only when its watch says it
        may have changed (`TreeWatch`: 8,000 stats at 2,000 tasks were most of a request)."""
        root = sources.tasks_root / task_set
        watch, seen = self._tasks.get(root) or (TreeWatch(root), ())
        if watch.changed():
            files: list[tuple[str, int, int, int]] = []
            _stat_tree(root, files)
            seen = tuple(files)
        self._tasks[root] = (watch, seen)
        return (*_fingerprint_rest(task_set, sources, store), seen)


def fingerprint(task_set: str, sources: Sources, store: Store) -> tuple[Any, ...]:
    """The store's generations of `KINDS` and the stat of every input file of the set."""
    files: list[tuple[str, int, int, int]] = []
    _stat_tree(sources.tasks_root / task_set, files)
    return (*_fingerprint_rest(task_set, sources, store), tuple(files))


def _fingerprint_rest(task_set: str, sources: Sources, store: Store) -> tuple[Any, ...]:
    """All of `fingerprint` but the task folder: the generations, the agents, lock and configs."""
    files: list[tuple[str, int, int, int]] = []
    _stat_tree(sources.agents_root, files)
    for path in (sources.lock_dir / f"{task_set}.lock", *sorted(
            sources.evals_root.glob("*.yaml"))):
        _stat_file(path, files)
    return store.index.generation(KINDS), tuple(files)


def _stat_tree(root: Path, out: list[tuple[str, int, int, int]]) -> None:
    try:
        entries = list(os.scandir(root))
    except (FileNotFoundError, NotADirectoryError):
        out.append((str(root), -1, -1, -1))
        return
    for entry in sorted(entries, key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                _stat_tree(Path(entry.path), out)
        else:
            _stat_file(Path(entry.path), out)


def _stat_file(path: Path, out: list[tuple[str, int, int, int]]) -> None:
    try:
        st = path.stat()
    except OSError:
        out.append((str(path), -1, -1, -1))
        return
    out.append((str(path), st.st_size, st.st_mtime_ns, st.st_ino))
