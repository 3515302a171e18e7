"""The SQLite index: a derived, rebuildable view of the JSON records for fast queries."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from evaluator.errors import DiskFullError
from evaluator.filelock import exclusive
from evaluator.store._files import free_bytes, path_named

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    task_set TEXT,
    task_id TEXT,
    subject TEXT,
    status TEXT,
    created REAL,
    body TEXT NOT NULL,
    PRIMARY KEY (kind, key)
);
CREATE INDEX IF NOT EXISTS records_by_set ON records (kind, task_set, task_id);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""
# Bumped in the transaction of every change, per kind ('generation:<kind>', and '*' when the
# index is rebuilt): what an aggregate of the index was computed from.
_BUMP = ("INSERT INTO meta VALUES ('generation:' || ?, 1) "
         "ON CONFLICT(name) DO UPDATE SET value = value + 1")

def connect_wal(path: Path, schema: str, *, timeout: float) -> sqlite3.Connection:
    """Open the SQLite database at `path` in WAL mode with `schema` made, the file made if missing.

    Switching a database to WAL takes an exclusive lock, and when several processes open the same
    new database at once SQLite can answer "database is locked" straight away, without waiting
    out the busy timeout (CI saw it with `doit -n 2 -P process`). So the switch and the schema are
    made under an flock on a file beside the database; once a database is in WAL it stays so.
    """
    with exclusive(path.with_name(path.name + ".lock")):
        conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(schema)
        except BaseException:
            conn.close()
            raise
    return conn


_BATCH = 500
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

# Columns lifted out of a record for filtering; everything else stays in `body`.
COLUMNS = ("task_set", "task_id", "subject", "status")


class Index:
    """One connection per process and thread (re-opened after fork), WAL so readers never
    block writers."""

    def __init__(self, path: Path, rebuild: Callable[[str], None] = lambda why: None, *,
                 missing: bool = False) -> None:
        """`rebuild(why)` is called once a new index has been made in place of a damaged one, or
        of a `missing` one (it is derived: the store refills it from the records)."""
        self._path = path
        self._rebuild = rebuild
        self._missing = missing
        # One connection per process and thread: SQLite's objects stay in the thread that made
        # them, and a long-lived server answers from a pool of threads.
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        if getattr(self._local, "pid", 0) != os.getpid():
            why = "it was missing" if self._missing else ""
            try:
                made = connect_wal(self._path, _SCHEMA, timeout=60)
            except sqlite3.DatabaseError as exc:
                if type(exc) is not sqlite3.DatabaseError:  # locked, busy, full: not damage
                    full = _full(self._path, exc)
                    if full is None:
                        raise
                    raise full from None
                why = self._set_aside(exc)
                made = connect_wal(self._path, _SCHEMA, timeout=60)
            made.execute("PRAGMA synchronous=NORMAL")
            self._local.conn, self._local.pid, self._missing = made, os.getpid(), False
            if why:
                self._rebuild(why)
        conn: sqlite3.Connection = self._local.conn
        return conn

    def _set_aside(self, exc: sqlite3.DatabaseError) -> str:
        """Move a damaged index (and its WAL) under corrupt/, kept; one process does it."""
        with exclusive(self._path.with_name(self._path.name + ".lock")):
            if not _damaged(self._path):
                return ""  # another process replaced it meanwhile
            dest = self._path.parent / "corrupt" / f"index-{time.time():.6f}"
            dest.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.rename(f"{self._path}{suffix}", dest / f"{self._path.name}{suffix}")
        return f"it was damaged ({exc}); moved to {dest}"

    def add(self, kind: str, key: str, record: dict[str, Any]) -> None:
        self.add_many([(kind, key, record)])

    def add_many(self, rows: Iterable[tuple[str, str, dict[str, Any]]]) -> None:
        self._write(rows, clear=False)

    def rebuild(self, rows: Iterable[tuple[str, str, dict[str, Any]]]) -> int:
        """Replace every row by `rows` in one transaction (readers see the old index until it
        commits), consuming them as they come: memory does not grow with the store."""
        return self._write(rows, clear=True)

    def _write(self, rows: Iterable[tuple[str, str, dict[str, Any]]], *, clear: bool) -> int:
        count = 0
        kinds = {"*"} if clear else set()

        def values() -> Iterator[tuple[Any, ...]]:
            nonlocal count
            for kind, key, rec in rows:
                count += 1
                kinds.add(kind)
                yield (kind, key, *(_text(rec.get(c)) for c in COLUMNS), rec.get("created"),
                       json.dumps(rec, sort_keys=True))

        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if clear:
                db.execute("DELETE FROM records")
            db.executemany("INSERT OR REPLACE INTO records VALUES (?,?,?,?,?,?,?,?)", values())
            db.executemany(_BUMP, [(k,) for k in sorted(kinds)])
            db.execute("COMMIT")
        except BaseException as exc:
            db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise DiskFullError(f"the store's index {path_named(self._path)} is out of "
                                    f"space ({exc}); free space on its disk") from None
            raise
        return count

    def remove(self, kind: str, key: str) -> None:
        """Forget one record (its file was set aside as unreadable); its kind's generation
        moves, so an aggregate that counted it is made again."""
        db = self._db()
        if db.in_transaction:  # met while a rebuild streams the records in: part of it
            db.execute("DELETE FROM records WHERE kind = ? AND key = ?", (kind, key))
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM records WHERE kind = ? AND key = ?", (kind, key))
            db.execute(_BUMP, (kind,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def query(self, kind: str, **where: str) -> Iterator[dict[str, Any]]:
        unknown = set(where) - set(COLUMNS)
        if unknown:
            raise ValueError(f"cannot filter on {sorted(unknown)}; use one of {COLUMNS}")
        clause = "".join(f" AND {c} = ?" for c in where)
        sql = f"SELECT body FROM records WHERE kind = ?{clause} ORDER BY key"
        for (body,) in self._db().execute(sql, (kind, *where.values())):
            yield json.loads(body)

    def fields(self, kind: str, paths: Sequence[str], keys: Iterable[str] | None = None,
               **where: str) -> Iterator[tuple[Any, ...]]:
        """(key, *values) of every record of a kind matching `where` (and, given `keys`, under
        one of them), each value read from the record's JSON at a path of `paths`
        (`"cost.total_usd"`; `"cost.model_usd:type"` gives its JSON type instead: 'null' for
        a null, None where it is absent) by SQLite itself: a pass over 100,000 records that
        builds no dict and parses no JSON in Python."""
        bad = [p for p in paths if not _PATH.match(p.removesuffix(":type"))]
        if bad or set(where) - set(COLUMNS):
            raise ValueError(f"cannot read fields {bad} or filter on "
                             f"{sorted(set(where) - set(COLUMNS))}")
        cols = "".join(f", json_type(body, '$.{p[:-5]}')" if p.endswith(":type")
                       else f", json_extract(body, '$.{p}')" for p in paths)
        sql = (f"SELECT key{cols} FROM records WHERE kind = ?"
               + "".join(f" AND {c} = ?" for c in where))
        db = self._db()
        if keys is None:
            yield from db.execute(sql, (kind, *where.values()))
            return
        batch = list(itertools.islice(it := iter(keys), _BATCH))
        while batch:  # by primary key, a batch at a time (SQLite bounds a query's parameters)
            marks = ",".join("?" * len(batch))
            yield from db.execute(f"{sql} AND key IN ({marks})", (kind, *where.values(), *batch))
            batch = list(itertools.islice(it, _BATCH))

    def generation(self, kinds: Sequence[str]) -> tuple[int, ...]:
        """Numbers that change whenever a record of one of `kinds` lands or the index is
        rebuilt (they never repeat for one index file): what an aggregate of those kinds was
        computed from."""
        names = ["generation:*", *(f"generation:{k}" for k in kinds)]
        found = dict(self._db().execute(
            f"SELECT name, value FROM meta WHERE name IN ({','.join('?' * len(names))})", names))
        return tuple(int(found.get(n, 0)) for n in names)

    def keys(self, kind: str) -> set[str]:
        return {k for (k,) in self._db().execute("SELECT key FROM records WHERE kind = ?", (kind,))}

    def clear(self) -> None:
        self.rebuild(())

    def close(self) -> None:
        if getattr(self._local, "pid", 0) == os.getpid():
            self._local.conn.close()
        self._local.pid = 0


# Under this much free space, an index that does not open (SQLite says "disk I/O error" when it
# cannot make its -shm file) is taken to be on a full disk.
_ROOM = 1 << 20


def _full(path: Path, exc: sqlite3.DatabaseError) -> DiskFullError | None:
    """The one line for an index that could not be opened on a full disk, else None."""
    try:
        free = free_bytes(path.parent)
    except OSError:
        return None
    if free >= _ROOM:
        return None
    return DiskFullError(f"the store's index {path_named(path)} is out of space: it could not be "
                         f"opened ({exc}; {free:,} bytes free there); free space on its disk, or "
                         "move the store to a larger one")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _damaged(path: Path) -> bool:
    try:
        conn = sqlite3.connect(path, timeout=60)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return type(exc) is sqlite3.DatabaseError
    return False
