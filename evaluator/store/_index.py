"""The SQLite index: a derived, rebuildable view of the JSON records for fast queries."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
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

    def __init__(self, path: Path) -> None:
        self._path = path
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def _db(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            conn = connect_wal(self._path, _SCHEMA, timeout=60)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conn, self._pid = conn, os.getpid()
        return self._conn

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
