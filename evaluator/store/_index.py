"""The SQLite index: a derived, rebuildable view of the JSON records for fast queries."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from evaluator.errors import DiskFullError
from evaluator.filelock import exclusive

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
"""

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


# Columns lifted out of a record for filtering; everything else stays in `body`.
COLUMNS = ("task_set", "task_id", "subject", "status")


class Index:
    """One connection per process (re-opened after fork), WAL so readers never block writers."""

    def __init__(self, path: Path, rebuild: Callable[[str], None] = lambda why: None, *,
                 missing: bool = False) -> None:
        """`rebuild(why)` is called once a new index has been made in place of a damaged one, or
        of a `missing` one (it is derived: the store refills it from the records)."""
        self._path = path
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._rebuild = rebuild
        self._missing = missing

    def _db(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            why = "it was missing" if self._missing else ""
            try:
                conn = connect_wal(self._path, _SCHEMA, timeout=60)
            except sqlite3.DatabaseError as exc:
                if type(exc) is not sqlite3.DatabaseError:  # locked, busy: not damage
                    raise
                why = self._set_aside(exc)
                conn = connect_wal(self._path, _SCHEMA, timeout=60)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conn, self._pid, self._missing = conn, os.getpid(), False
            if why:
                self._rebuild(why)
        return self._conn

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
        values = [
            (kind, key, *(_text(rec.get(c)) for c in COLUMNS), rec.get("created"),
             json.dumps(rec, sort_keys=True))
            for kind, key, rec in rows
        ]
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT OR REPLACE INTO records VALUES (?,?,?,?,?,?,?,?)", values)
            db.execute("COMMIT")
        except BaseException as exc:
            db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise DiskFullError(f"the store's index {self._path} is out of space ({exc}); "
                                    "free space on its disk") from None
            raise

    def remove(self, kind: str, key: str) -> None:
        """Forget one record (its file was set aside as unreadable)."""
        self._db().execute("DELETE FROM records WHERE kind = ? AND key = ?", (kind, key))

    def query(self, kind: str, **where: str) -> Iterator[dict[str, Any]]:
        unknown = set(where) - set(COLUMNS)
        if unknown:
            raise ValueError(f"cannot filter on {sorted(unknown)}; use one of {COLUMNS}")
        clause = "".join(f" AND {c} = ?" for c in where)
        sql = f"SELECT body FROM records WHERE kind = ?{clause} ORDER BY key"
        for (body,) in self._db().execute(sql, (kind, *where.values())):
            yield json.loads(body)

    def keys(self, kind: str) -> set[str]:
        return {k for (k,) in self._db().execute("SELECT key FROM records WHERE kind = ?", (kind,))}

    def clear(self) -> None:
        self._db().execute("DELETE FROM records")

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None


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
