"""Runs in SQLite under the store, shared by every server and worker process on it.

Every change is one `BEGIN IMMEDIATE` transaction and every state change is a compare-and-set
on (status, worker pid), so a worker recording its outcome and a server declaring that worker
dead can never both win. A partial unique index keeps one active run per request even when two
servers share the store.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from evaluator.store import connect_wal

Status = Literal["queued", "running", "succeeded", "failed"]
ACTIVE: tuple[Status, ...] = ("queued", "running")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    task_set TEXT NOT NULL,
    agent TEXT NOT NULL,
    identity TEXT NOT NULL,
    samples INTEGER NOT NULL,
    isolation TEXT,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
    cause TEXT,
    note TEXT,
    created_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    segment_at REAL,
    pid INTEGER,
    pid_start TEXT,
    starts INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    counts TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS runs_one_active ON runs (request)
    WHERE status IN ('queued', 'running');
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, created_at);
"""


@dataclass(frozen=True)
class Run:
    id: str
    request: str  # what makes two posts the same run: set, agent, identity, samples, isolation
    task_set: str
    agent: str
    identity: str
    samples: int
    isolation: str | None  # the run's least isolation, None: the eval config's
    status: Status
    cause: str | None
    note: str | None
    created_at: float
    started_at: float | None
    finished_at: float | None
    segment_at: float | None  # when the current worker claimed it: its log segment starts here
    pid: int | None
    pid_start: str | None
    starts: int
    exit_code: int | None
    counts: dict[str, Any] | None  # snapshot taken when the run ended

    @property
    def active(self) -> bool:
        return self.status in ACTIVE


_COLUMNS = tuple(f.name for f in fields(Run))


def request_key(task_set: str, agent: str, identity: str, samples: int,
                isolation: str | None = None) -> str:
    # Runs scheduled before `isolation` existed keep their key (and stay one run per request).
    return json.dumps([task_set, agent, identity, samples, *([isolation] if isolation else [])])


class RunDB:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(connect_wal(path, _SCHEMA, timeout=30)) as db:
            # A store made before runs had an isolation: add the column (NULL: the config's).
            if "isolation" not in {r[1] for r in db.execute("PRAGMA table_info(runs)")}:
                db.execute("ALTER TABLE runs ADD COLUMN isolation TEXT")

    def _connect(self) -> sqlite3.Connection:
        # A connection per call: the API answers from a thread pool and sqlite3 connections
        # belong to the thread that made them.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA busy_timeout=30000")
        db.row_factory = sqlite3.Row
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # reads ------------------------------------------------------------------------------------
    def get(self, run_id: str) -> Run | None:
        with closing(self._connect()) as db:
            row = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run(row) if row else None

    def with_status(self, status: Status) -> list[Run]:
        """Runs in `status`, oldest first (the queue's order)."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM runs WHERE status = ? ORDER BY created_at, id",
                              (status,)).fetchall()
        return [_run(r) for r in rows]

    def active(self) -> list[Run]:
        """Queued and running runs, oldest first, read in one statement: one consistent view
        while workers claim and finish runs beside the reader."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT * FROM runs WHERE status IN ('queued', 'running') "
                              "ORDER BY created_at, id").fetchall()
        return [_run(r) for r in rows]

    # writes -----------------------------------------------------------------------------------
    def schedule(self, *, task_set: str, agent: str, identity: str, samples: int,
                 isolation: str | None = None,
                 done: dict[str, Any] | None = None) -> tuple[Run, bool]:
        """(run, created): the active run of this request, else a new one. `done` (a counts
        snapshot) creates it succeeded at once: everything it would run is in the store."""
        request = request_key(task_set, agent, identity, samples, isolation)
        with self._tx() as db:
            row = db.execute("SELECT * FROM runs WHERE request = ? AND status IN ('queued', "
                             "'running')", (request,)).fetchone()
            if row:
                return _run(row), False
            now = time.time()
            run_id = uuid.uuid4().hex
            values: dict[str, Any] = {
                "id": run_id, "request": request, "task_set": task_set, "agent": agent,
                "identity": identity, "samples": samples, "isolation": isolation,
                "status": "queued",
                "created_at": now, "starts": 0}
            if done is not None:
                values.update(status="succeeded", started_at=now, finished_at=now,
                              counts=json.dumps(done), note="every attempt of this run was "
                              "already in the store; nothing ran")
            names = ", ".join(values)
            db.execute(f"INSERT INTO runs ({names}) VALUES ({', '.join('?' * len(values))})",
                       tuple(values.values()))
            created = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run(created), True

    def claim(self, run_id: str, pid: int, pid_start: str | None) -> Run | None:
        """Queued -> running for the worker `pid`; None when the run is not queued (any more)."""
        now = time.time()
        with self._tx() as db:
            cur = db.execute(
                "UPDATE runs SET status = 'running', pid = ?, pid_start = ?, starts = starts + 1,"
                " started_at = COALESCE(started_at, ?), segment_at = ? "
                "WHERE id = ? AND status = 'queued'", (pid, pid_start, now, now, run_id))
            row = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run(row) if cur.rowcount == 1 else None

    def finish(self, run_id: str, pid: int, *, status: Status, cause: str | None,
               exit_code: int | None, counts: dict[str, Any] | None) -> bool:
        """Running (by worker `pid`) -> succeeded or failed; False when it was not ours."""
        with self._tx() as db:
            cur = db.execute(
                "UPDATE runs SET status = ?, cause = ?, exit_code = ?, counts = ?, "
                "finished_at = ? WHERE id = ? AND status = 'running' AND pid = ?",
                (status, cause, exit_code, json.dumps(counts) if counts is not None else None,
                 time.time(), run_id, pid))
        return cur.rowcount == 1

    def requeue(self, run_id: str, pid: int, note: str) -> bool:
        """Running (by the dead worker `pid`) -> queued, to be resumed by a new worker."""
        with self._tx() as db:
            cur = db.execute("UPDATE runs SET status = 'queued', note = ? "
                             "WHERE id = ? AND status = 'running' AND pid = ?",
                             (note, run_id, pid))
        return cur.rowcount == 1

    def fail(self, run_id: str, cause: str, *, status: Status, pid: int | None = None) -> bool:
        """`status` (and, for a running run, its worker `pid`) -> failed with `cause`."""
        with self._tx() as db:
            cur = db.execute(
                "UPDATE runs SET status = 'failed', cause = ?, finished_at = ? "
                "WHERE id = ? AND status = ? AND (? IS NULL OR pid = ?)",
                (cause, time.time(), run_id, status, pid, pid))
        return cur.rowcount == 1


def _run(row: sqlite3.Row) -> Run:
    values = {name: row[name] for name in _COLUMNS}
    values["counts"] = json.loads(values["counts"]) if values["counts"] else None
    return Run(**values)
