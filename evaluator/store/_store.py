"""The content-addressed store: blobs by blake3, one JSON record per target, a SQLite index.

The store, not doit's state DB, decides what is up to date: a target is done when its record
exists. Records are created once and never overwritten, so a failed or killed run cannot damage
what an earlier run finished. With a remote (`$EVAL_REMOTE`, see `_through`), the local
directory is a checked cache in front of it: what is not here is read through, what lands here
is written through.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

from evaluator.console import say
from evaluator.errors import BadInputError, DiskFullError
from evaluator.hashing import canonical_json, hash_bytes
from evaluator.remote import remote_from_env
from evaluator.settings import Settings, settings
from evaluator.store._backend import RemoteBackend
from evaluator.store._corrupt import Unreadable, aside_line, parse_record, set_aside
from evaluator.store._files import (
    create_exclusive,
    create_many,
    free_bytes,
    path_named,
    replace_atomic,
)
from evaluator.store._index import Index
from evaluator.store._lease import FileLeases, Leases
from evaluator.store._pending import Pending
from evaluator.store._record import Record
from evaluator.store._remote_lease import RemoteLeases
from evaluator.store._through import RemoteCache
from evaluator.store._verify import Verified, missing_blobs, missing_line, verify
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
        self._notify = notify
        self._tmp = self.root / "tmp"
        for sub in ("blobs", "records", "errors", "tmp"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._owner = f"the store at {path_named(self.root)}"
        _keep_reserve(self.root / RESERVE)
        index = self.root / "index.sqlite"
        self.index = Index(index, self._reindexed, missing=not index.exists() and any(
            (self.root / "records").iterdir()))
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
            raise BadInputError(f"blob {digest} is not in the store at {self.root}{where}; "
                                f"`evaluator store verify` names the records that need it and "
                                f"what to do")
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
        """The record, or None when absent. One whose file does not read back is named, set
        aside under `corrupt/` and taken as absent (`_corrupt`), so its target runs again."""
        path = self._record_str(kind, key)
        try:
            f = open(path, "rb")  # noqa: SIM115 (closed below; fstat'ed when unreadable)
        except FileNotFoundError:
            return self.remote.fetch_record(kind, key) if self.remote is not None else None
        with f:
            data = f.read()
            try:
                return parse_record(data, kind, key)
            except Unreadable as bad:
                self._set_aside(kind, key, path, bad, os.fstat(f.fileno()))
        return self.remote.fetch_record(kind, key) if self.remote is not None else None

    def _set_aside(self, kind: str, key: str, path: str, bad: Unreadable,
                   seen: os.stat_result) -> None:
        dest = set_aside(self.root, path, kind, key, seen)
        if dest is not None:
            self.forget(kind, key)
        self._notify(aside_line(kind, key, path, bad.reason, dest))

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
        landed = create_exclusive(self.record_path(kind, key), data, self._tmp, self._owner)
        if landed:
            try:
                self.index.add(kind, key, body)
            except DiskFullError as exc:  # the record is safe; only the derived index missed it
                self._notify(f"store: {kind}/{key} landed, but the index could not take it: "
                             f"{exc}; `evaluator store verify --reindex` adds it once there is "
                             "space")
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
                              for b in bodies], self._tmp, self._owner)
        rows = [(kind, b["key"], b) for b, ok in zip(bodies, landed, strict=True) if ok]
        self.index.add_many(rows)
        return len(rows)

    def read(self, cls: type[R], key: str) -> R | None:
        """The record of `cls`'s kind under `key`, read back through its type; None if absent.
        One that is JSON but not a `cls` (a field of the wrong type: damaged, or hand-edited) is
        set aside like an unreadable one, so its target runs again."""
        data = self.get(cls.KIND, key)
        if data is None:
            return None
        try:
            return cls.parse(data, key)
        except BadInputError as exc:
            path = self._record_str(cls.KIND, key)
            try:
                seen = os.stat(path)
            except FileNotFoundError:
                raise exc from None  # a remote's record: nothing here to set aside
            self._set_aside(cls.KIND, key, path, Unreadable(str(exc).split("; the record")[0]),
                            seen)
            return None

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
        time in key order; one that does not read back is set aside, as `get` does."""
        base = os.path.join(self._records, kind)
        for prefix in sorted(_listdir(base)):
            for name in sorted(_listdir(os.path.join(base, prefix))):
                key = name[:-len(".json")]
                if name.endswith(".json") and key[:2] == prefix:  # strays are not records
                    record = self.get(kind, key)
                    if record is not None:
                        yield record

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

    # checks ---------------------------------------------------------------------------------
    def missing_blobs(self, record: dict[str, Any]) -> list[tuple[str, str]]:
        """(what, digest) of each blob `record` needs that neither this store nor its remote
        holds (`_verify.needed_blobs`): a reader says so instead of showing nothing."""
        return missing_blobs(record, self)

    def missing_line(self, kind: str, key: str, what: str, digest: str) -> str:
        """The line naming a missing blob, the record that needs it and what to do."""
        return missing_line(kind, key, what, digest, self.root)

    def verify(self, *, aside: bool = False, hashes: bool = False,
               say: Callable[[str], None] = print) -> Verified:
        """`evaluator store verify`: every record read back, every blob it needs there; with
        `aside`, what is wrong is moved under `corrupt/` so that its target runs again."""
        return verify(self, aside=aside, hashes=hashes, say=say)

    def free_bytes(self) -> int:
        """Bytes still free on the store's disk (for what a write may need)."""
        return free_bytes(self.root)

    def space_problem(self) -> str:
        """Why the store's disk has too little room to start paid work ("" when it has): what
        is free against `settings.store_min_free_mb`."""
        need = settings.store_min_free_mb * 1_000_000
        if not need:
            return ""  # 0: no check
        free = self.free_bytes()
        # A reserve a full disk used up (for an error note) is not room: the next process
        # remakes it once there is room, and a disk left with less could not record another error.
        held = 0 if os.path.exists(self.root / RESERVE) else _RESERVE_BYTES
        if free - held >= need:
            return ""
        return (f"{self._owner} has {free:,} bytes free"
                + (f", less the {held:,} it keeps back for error notes (its reserve, used up "
                   "by a full disk)" if held else "")
                + f", under the {settings.store_min_free_mb} MB an attempt may need "
                f"({Settings.store_min_free_mb.env}); free space on its disk, or set "
                f"{Settings.store.env} to a store on a larger one")

    def indexed(self, kind: str) -> set[str]:
        """The keys of `kind` the index holds."""
        return self.index.keys(kind)

    def forget(self, kind: str, key: str) -> None:
        """Drop a record from the index (its file was set aside)."""
        self.index.remove(kind, key)

    def _reindexed(self, why: str) -> None:
        """A new index in place of a missing or damaged one: refilled from the records (the
        source of truth), so queries never see an empty store that is not."""
        count = self.reindex()
        self._notify(f"store: the index of {self.root} was rebuilt from its {count} record(s) "
                     f"({why})")

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
        path = self._record_str(kind, key)
        try:
            with open(path, "rb") as f:
                data = f.read()
                try:
                    parse_record(data, kind, key)
                except Unreadable as bad:  # never uploaded: set aside like any read
                    self._set_aside(kind, key, path, bad, os.fstat(f.fileno()))
                    return None
                return data
        except FileNotFoundError:
            return None

    def land_blob(self, digest: str, data: bytes) -> None:
        path = self._blob_path(digest)
        if not path.exists():
            create_exclusive(path, data, self._tmp, self._owner)

    def land_record(self, kind: str, key: str, body: bytes,
                    record: dict[str, Any]) -> dict[str, Any]:
        """Land a checked remote record as is; a local one that won a race is kept, and returned."""
        if create_exclusive(self.record_path(kind, key), body, self._tmp, self._owner):
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
        try:
            create_exclusive(path, canonical_json(body), self._tmp, self._owner)
        except DiskFullError:
            # The store keeps a small reserve for this: an infra error is recorded even on a
            # full disk, so the target is counted and retried rather than lost from view.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.root / RESERVE)
            try:
                create_exclusive(path, canonical_json(body), self._tmp, self._owner)
            except DiskFullError as full:
                self._notify(f"store: the infra error of {kind}/{key} could not be recorded: "
                             f"{full}")

    def errors(self, kind: str, key: str) -> list[dict[str, Any]]:
        base = self.root / "errors" / kind / key
        if not base.is_dir():
            return []
        return [_error_note(p) for p in sorted(base.glob("*.json"))]

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
        replace_atomic(path, data, self._tmp, self._owner)
        return path


def _error_note(path: Path) -> dict[str, Any]:
    """An infra error note; one that does not read back still counts (it was an error), and
    says where it is rather than failing the summary or the page that lists it."""
    try:
        note = json.loads(path.read_bytes())
    except ValueError:
        note = None
    if isinstance(note, dict):
        return note
    return {"cause": "UnreadableNote", "message": f"the error note {path} does not read back "
            "as JSON; remove it, or `evaluator quarantine release` to retry the target"}


# A small file the store keeps so that, on a full disk, removing it makes room for the infra
# error notes that say what happened (remade by the next process that finds space for it).
RESERVE = ".reserve"
_RESERVE_BYTES = 1 << 20


def _keep_reserve(path: Path) -> None:
    if path.exists():
        return
    # Remade only with room to spare: a reserve that takes a nearly full disk's last megabyte
    # leaves the index no room to open (SQLite's "disk I/O error" at every command's start).
    # Until then `space_problem` counts it as owed.
    try:
        if free_bytes(path.parent) < 2 * _RESERVE_BYTES:
            return
    except OSError:
        return
    try:
        with open(path, "xb") as f:
            f.write(bytes(_RESERVE_BYTES))
    except FileExistsError:
        pass
    except OSError:  # no room for it now (or a read-only store): the next process tries again
        with contextlib.suppress(OSError):
            path.unlink()
