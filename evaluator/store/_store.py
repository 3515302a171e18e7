"""The content-addressed store: blobs by blake3, one JSON record per target, a SQLite index.

The store, not doit's state DB, decides what is up to date: a target is done when its record
exists. Records are created once and never overwritten, so a failed or killed run cannot damage
what an earlier run finished. With a remote (`$EVAL_REMOTE`, see `_through`), the local
directory is a checked cache in front of it: what is not here is read through, what lands here
is written through.
"""

from __future__ import annotations

import enum
import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

from evaluator.console import say
from evaluator.errors import BadInputError
from evaluator.hashing import canonical_json, hash_bytes
from evaluator.remote import remote_from_env
from evaluator.settings import settings
from evaluator.store._backend import RemoteBackend
from evaluator.store._files import create_exclusive, create_many, replace_atomic
from evaluator.store._index import Index
from evaluator.store._lease import FileLeases, Leases
from evaluator.store._pending import Pending
from evaluator.store._record import Record
from evaluator.store._remote_lease import RemoteLeases
from evaluator.store._through import RemoteCache
from evaluator.version import harness_build

DEFAULT_ROOT = ".eval"
R = TypeVar("R", bound=Record)


def default_root() -> Path:
    """`settings.store`: --store, else `$EVAL_STORE`, else `.eval` in the current directory."""
    return settings.store


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except (FileNotFoundError, NotADirectoryError):
        return []


class _FromEnv(enum.Enum):
    FROM_ENV = "env"


FROM_ENV: Literal[_FromEnv.FROM_ENV] = _FromEnv.FROM_ENV


def _stderr(line: str) -> None:
    say(line, err=True)


class Store:
    """Blobs, records and the index under one root directory, optionally fronting a remote.

    `remote` FROM_ENV (the default) reads `$EVAL_REMOTE` like `root` reads `$EVAL_STORE`, so
    every part of the harness that opens the store gets the same remote; None means local only.
    `notify` receives each line about a remote record that was refused or not uploaded.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None,
                 remote: RemoteBackend | None | Literal[_FromEnv.FROM_ENV] = FROM_ENV,
                 *, notify: Callable[[str], None] = _stderr) -> None:
        self.root = Path(root) if root is not None else default_root()
        self._tmp = self.root / "tmp"
        for sub in ("blobs", "records", "errors", "tmp"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.index = Index(self.root / "index.sqlite")
        self._records = os.path.join(os.fspath(self.root), "records")
        backend = remote_from_env() if remote is FROM_ENV else remote
        self.remote = (RemoteCache(backend, self, notify, Pending(self.root))
                       if backend is not None else None)
        # Runs on this machine meet at the flock; with a remote, runs on others at its lease.
        self.leases: Leases = FileLeases(self.root)
        if self.remote is not None:
            self.leases = RemoteLeases(self.leases, self.remote)

    # blobs ---------------------------------------------------------------------------------
    def put_blob(self, data: bytes) -> str:
        """Store `data` once; return its blake3."""
        digest = hash_bytes(data)
        self.land_blob(digest, data)
        return digest

    def get_blob(self, digest: str) -> bytes:
        data = self.local_blob(digest)
        if data is None and self.remote is not None:
            data = self.remote.fetch_blob(digest)
        if data is None:
            where = f" nor in {self.remote.backend.url}" if self.remote is not None else ""
            raise BadInputError(f"blob {digest} is not in the store at {self.root}{where}")
        return data

    def has_blob(self, digest: str) -> bool:
        return self.has_local_blob(digest) or (
            self.remote is not None and self.remote.fetch_blob(digest) is not None)

    def _blob_path(self, digest: str) -> Path:
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise BadInputError(f"not a blake3 hex digest: {digest!r}")
        return self.root / "blobs" / digest[:2] / digest[2:]

    # records -------------------------------------------------------------------------------
    def record_path(self, kind: str, key: str) -> Path:
        return Path(self._record_str(kind, key))

    def _record_str(self, kind: str, key: str) -> str:
        # Plain strings, not pathlib: a no-op run over 10,000 targets asks this 10,000 times.
        return f"{self._records}/{kind}/{key[:2]}/{key}.json"

    def has(self, kind: str, key: str) -> bool:
        """Is this target done? One stat, no hashing: the cost of a no-op run. A key not here is
        looked up in the remote's listing and, when listed, fetched and checked."""
        if os.path.exists(self._record_str(kind, key)):
            return True
        return self.remote is not None and self.remote.fetch_record(kind, key) is not None

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        try:
            with open(self._record_str(kind, key), "rb") as f:
                data: dict[str, Any] = json.loads(f.read())
        except FileNotFoundError:
            return self.remote.fetch_record(kind, key) if self.remote is not None else None
        return data

    def put(self, kind: str, key: str, record: dict[str, Any]) -> bool:
        """Create the record for (kind, key); False when one already exists (it is kept). It is
        stamped with the harness build that landed it (`harness`: provenance, in no key).

        With a writable remote the record goes up first, with a conditional put; when the remote
        already holds one for the key, that one lands here instead (see `RemoteCache.push`), so
        two machines never keep two records for one key. A remote that cannot be reached is
        reported and the record lands here all the same."""
        if self.has_local(kind, key):
            return False
        body = {**record, "kind": kind, "key": key, "created": record.get("created", time.time()),
                "harness": record.get("harness") or harness_build()}
        data = canonical_json(body)
        if self.remote is not None and self.remote.push(kind, key, data, body) is not None:
            return False  # another machine landed this key first: its record is now ours too
        landed = create_exclusive(self.record_path(kind, key), data, self._tmp)
        if landed:
            self.index.add(kind, key, body)
        return landed

    def put_many(self, kind: str, records: Iterable[tuple[str, dict[str, Any]]]) -> int:
        """`put` for many (key, record) pairs of one kind: one sync and one index transaction
        for all of them, not two syncs and a transaction each. Returns how many landed (a key
        already stored keeps its record). With a remote each goes up as `put` sends it."""
        if self.remote is not None:
            return sum(self.put(kind, key, record) for key, record in records)
        now = time.time()
        bodies = [{**record, "kind": kind, "key": key, "created": record.get("created", now)}
                  for key, record in records if not self.has_local(kind, key)]
        landed = create_many([(self.record_path(kind, b["key"]), canonical_json(b))
                              for b in bodies], self._tmp)
        rows = [(kind, b["key"], b) for b, ok in zip(bodies, landed, strict=True) if ok]
        self.index.add_many(rows)
        return len(rows)

    def read(self, cls: type[R], key: str) -> R | None:
        """The record of `cls`'s kind under `key`, read back through its type; None if absent."""
        data = self.get(cls.KIND, key)
        return None if data is None else cls.parse(data, key)

    def write(self, key: str, record: Record) -> bool:
        """`put` for a typed record (its kind is its type's)."""
        return self.put(record.KIND, key, record.body())

    def flush_pending(self) -> tuple[int, int]:
        """Upload the records earlier runs could not (the remote was out of reach);
        (uploaded, still pending). No-op without a writable remote or with nothing pending."""
        if self.remote is None or self.remote.pending is None or not len(self.remote.pending):
            return 0, 0
        return self.remote.flush_pending()

    def prefetch(self, kind: str, keys: Iterable[str]) -> int:
        """Land, in parallel, the records of `keys` the remote holds and this store lacks (a
        first run on an empty local store); no-op without a remote. Returns how many landed."""
        return self.remote.prefetch(kind, keys) if self.remote is not None else 0

    def iter_records(self, kind: str) -> Iterator[dict[str, Any]]:
        """Every record of a kind, read from the JSON files (the source of truth), one at a
        time in key order."""
        base = os.path.join(self._records, kind)
        for prefix in sorted(_listdir(base)):
            folder = os.path.join(base, prefix)
            for name in sorted(_listdir(folder)):
                if name.endswith(".json"):
                    with open(os.path.join(folder, name), "rb") as f:
                        yield json.loads(f.read())

    def query(self, kind: str, **where: str) -> list[dict[str, Any]]:
        """Records of a kind filtered on indexed columns (task_set, task_id, subject, status).

        With a remote, its records of the kind are landed here first (once per run)."""
        if self.remote is not None:
            self.remote.mirror(kind)
        return list(self.index.query(kind, **where))

    def fields(self, kind: str, paths: tuple[str, ...], **where: str) -> list[tuple[Any, ...]]:
        """(key, value at each JSON path) of the records of `kind` in the local index matching
        `where`: one query that parses no whole record (see `Index.fields`)."""
        return list(self.index.fields(kind, paths, **where))

    def select(self, cls: type[R], **where: str) -> list[R]:
        """`query` for a typed record: the records of `cls`'s kind, read back through it."""
        return [cls.parse(r) for r in self.query(cls.KIND, **where)]

    def select_readable(self, cls: type[R], **where: str) -> list[R]:
        """`select` without the records that do not parse as `cls` (hand-made, or written by
        other code): for a scan of what the store holds (estimates, notes, other versions),
        where one such record must not fail the whole read. A record found by its key goes
        through `read`, which names the bad field instead."""
        out = []
        for r in self.query(cls.KIND, **where):
            try:
                out.append(cls.parse(r))
            except BadInputError:
                continue
        return out

    def reindex(self) -> int:
        """Rebuild the index from the records, e.g. after a crash between record and index:
        one transaction, the records streamed into it (memory stays flat at any size)."""
        return self.index.rebuild(
            (r["kind"], r["key"], r)
            for kind in sorted(_listdir(self._records))
            for r in self.iter_records(kind))

    def index_record(self, kind: str, key: str) -> None:
        """Index the local record of (kind, key) again: the index is derived, and a crash
        between a record's landing and its row leaves the record unindexed."""
        data = self.get(kind, key)
        if data is not None and self.has_local(kind, key):
            self.index.add(kind, key, data)

    # the local side, for the remote cache ---------------------------------------------------
    def has_local(self, kind: str, key: str) -> bool:
        return os.path.exists(self._record_str(kind, key))

    def has_local_blob(self, digest: str) -> bool:
        return self._blob_path(digest).exists()

    def local_blob(self, digest: str) -> bytes | None:
        try:
            return self._blob_path(digest).read_bytes()
        except FileNotFoundError:
            return None

    def local_record(self, kind: str, key: str) -> bytes | None:
        try:
            with open(self._record_str(kind, key), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def land_blob(self, digest: str, data: bytes) -> None:
        path = self._blob_path(digest)
        if not path.exists():
            create_exclusive(path, data, self._tmp)

    def land_record(self, kind: str, key: str, body: bytes,
                    record: dict[str, Any]) -> dict[str, Any]:
        """Land a checked remote record as is; a local one that won a race is kept, and returned."""
        if create_exclusive(self.record_path(kind, key), body, self._tmp):
            self.index.add(kind, key, record)
            return record
        return self.get(kind, key) or record

    # infra errors: kept beside, never in place of, a record --------------------------------
    def put_error(self, kind: str, key: str, exc: BaseException, *, task_id: str = "",
                  subject: str = "") -> None:
        """Note an infrastructure failure of a target (`exc`, on task `task_id`, of `subject`:
        an agent or a predictions file); it stays not-done and is retried. The one place an
        error note is built: {cause, message, task_id, subject, kind, key, created}."""
        path = self.root / "errors" / kind / key / f"{time.time():.6f}-{uuid.uuid4().hex[:8]}.json"
        body = {"cause": type(exc).__name__, "message": str(exc), "task_id": task_id,
                "subject": subject, "kind": kind, "key": key, "created": time.time()}
        create_exclusive(path, canonical_json(body), self._tmp)

    def errors(self, kind: str, key: str) -> list[dict[str, Any]]:
        base = self.root / "errors" / kind / key
        if not base.is_dir():
            return []
        return [json.loads(p.read_bytes()) for p in sorted(base.glob("*.json"))]

    def error_count(self, kind: str, key: str) -> int:
        base = self.root / "errors" / kind / key
        return len(os.listdir(base)) if base.is_dir() else 0

    def error_counts(self, kind: str) -> dict[str, int]:
        """Infra errors noted per key of a kind, from one listing (keys without any are left
        out): what a command over many targets asks instead of `error_count` per key."""
        base = os.path.join(os.fspath(self.root), "errors", kind)
        return {key: n for key in _listdir(base) if (n := len(_listdir(os.path.join(base, key))))}

    def release_errors(self, kind: str, key: str) -> int:
        """Move a target's infra errors aside (kept under `released/`, never deleted), so it is
        retried again; returns how many there were."""
        base = self.root / "errors" / kind / key
        count = self.error_count(kind, key)
        if count:
            dest = self.root / "released" / kind / key / f"{time.time():.6f}"
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.rename(base, dest)  # atomic: the target is quarantined or released, never half
        return count

    # derived files (verdict summaries and the like) ------------------------------------------
    def write_derived(self, relpath: str, data: bytes) -> Path:
        path = self.root / relpath
        replace_atomic(path, data, self._tmp)
        return path
