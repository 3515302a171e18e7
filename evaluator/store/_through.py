"""The local store as a cache in front of a remote: read-through, write-through, checked.

Reads: a key the local store lacks is looked up in the remote's listing of its kind (one paginated
LIST per kind, taken on first use and kept for the run), so keys the remote lacks cost no request
at all. A listed record is downloaded with every blob it reaches, each checked against its
blake3, and landed locally (blobs first, record last) before anyone sees it; one that fails a
check is reported, treated as absent for the rest of the run, and never landed.

Writes: only with a writable backend. Blobs go up before the record that names them, and the
record with a conditional put, so of two machines racing on one key exactly one lands; the loser
takes the winner's record (checked like any read), so both keep the same one. A remote that
fails is reported and the record lands locally all the same: an upload never costs a result.

Offline: a remote that cannot be reached (RemoteUnavailableError) is said once, and the run goes
on against the local store alone, sending nothing more. What lands meanwhile is journalled as
pending (`_pending`) and uploaded by the next run whose first listing reaches the remote, or by
`python -m evaluator remote push`.
"""

from __future__ import annotations

import enum
import json
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from evaluator.errors import InfraError
from evaluator.hashing import hash_bytes
from evaluator.remote import RemoteUnavailableError
from evaluator.store._backend import RemoteBackend
from evaluator.store._envelope import RejectedRecord, blob_closure, unwrap, wrap
from evaluator.store._pending import Pending

_WORKERS = 8
# A pending marker whose record never landed this long after is a killed run's leftover.
_ABANDONED_S = 3600.0
_T = TypeVar("_T")
_R = TypeVar("_R")


class LocalSide(Protocol):
    """What the cache needs from the local store (the Store's own primitives)."""

    def has_local(self, kind: str, key: str) -> bool: ...
    def has_local_blob(self, digest: str) -> bool: ...
    def local_blob(self, digest: str) -> bytes | None: ...
    def local_record(self, kind: str, key: str) -> bytes | None: ...
    def land_blob(self, digest: str, data: bytes) -> None: ...
    def land_record(self, kind: str, key: str, body: bytes,
                    record: dict[str, Any]) -> dict[str, Any]: ...


_Download = tuple[bytes, dict[str, Any], dict[str, bytes]]


class _Upload(enum.Enum):
    LANDED = "landed"  # the record is in the remote now
    THEIRS = "theirs"  # the remote already held one for the key
    FAILED = "failed"  # not uploaded; journalled as pending


class RemoteCache:
    """One run's view of a remote: its listings, what it refused, what it already uploaded."""

    def __init__(self, backend: RemoteBackend, local: LocalSide,
                 notify: Callable[[str], None], pending: Pending | None = None) -> None:
        self.backend = backend
        self.problems: list[str] = []  # every line reported this run, for callers and tests
        self.offline = False  # the remote could not be reached: local store alone until the end
        self.pending = pending
        self._local = local
        self._notify = notify
        self._flush_due = pending is not None
        self._listed: dict[str, set[str]] = {}
        self._rejected: set[tuple[str, str]] = set()
        self._mirrored: set[str] = set()
        self._pushed: set[str] = set()
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0

    # reads -----------------------------------------------------------------------------------
    def listed(self, kind: str, key: str) -> bool:
        """In the remote's listing of `kind` (taken once per run) and not refused this run."""
        return (kind, key) not in self._rejected and key in self._keys(kind)

    def fetch_record(self, kind: str, key: str) -> dict[str, Any] | None:
        """The remote's record, checked and landed locally; None when absent or refused."""
        if not self.listed(kind, key):
            return None
        try:
            got = self._download(kind, key, self._map)
        except RemoteUnavailableError as exc:
            self.go_offline(exc)
            return None
        return self._land(kind, key, got) if got is not None else None

    def fetch_now(self, kind: str, key: str) -> bool:
        """Ask the remote for the record now, past the run's listing (another machine may have
        pushed it since the listing was taken); checked and landed here. True when it landed.
        Raises RemoteUnavailableError: the caller (a lease waiting) decides what offline means."""
        if self.offline or (kind, key) in self._rejected:
            return False
        got = self._download(kind, key, self._map)
        if got is None:
            return False
        with self._lock:
            if kind in self._listed:
                self._listed[kind].add(key)
        self._land(kind, key, got)
        return True

    def fetch_blob(self, digest: str) -> bytes | None:
        if self.offline:
            return None
        try:
            data = self.backend.get_blob(digest)
        except RemoteUnavailableError as exc:
            self.go_offline(exc)
            return None
        if data is None:
            return None
        if hash_bytes(data) != digest:
            self.report(f"refused blob {digest} from {self.backend.url}: its bytes hash to "
                         f"{hash_bytes(data)}; treated as absent")
            return None
        self._local.land_blob(digest, data)
        return data

    def mirror(self, kind: str) -> None:
        """Land every remote record of `kind` not here yet (once per run), so queries over the
        index see what every machine sees."""
        if kind in self._mirrored:
            return
        todo = sorted(k for k in self._keys(kind)
                      if (kind, k) not in self._rejected and not self._local.has_local(kind, k))
        self.prefetch(kind, todo)
        if not self.offline:
            self._mirrored.add(kind)

    def prefetch(self, kind: str, keys: Iterable[str]) -> int:
        """Download and land, in parallel, every key of `keys` that the remote lists and this
        store lacks: a first run on an empty local store fills it in one pass, not a request
        per target in turn. Returns how many landed."""
        todo = [k for k in dict.fromkeys(keys)
                if self.listed(kind, k) and not self._local.has_local(kind, k)]
        try:
            downloads = self._map(lambda k: self._download(kind, k, _serial), todo)
        except RemoteUnavailableError as exc:
            self.go_offline(exc)
            return 0
        landed = 0
        for key, got in zip(todo, downloads, strict=True):
            if got is not None:
                self._land(kind, key, got)
                landed += 1
        return landed

    # writes ----------------------------------------------------------------------------------
    def push(self, kind: str, key: str, body: bytes, record: dict[str, Any]) -> dict[str, Any] | None:
        """Upload a new record, its blobs first; report failures, never raise.

        Returns the remote's own record for the key (checked and landed here) when the remote
        already held one, so every machine keeps the one record the team has; None when this
        record went up, or could not, or the remote's was refused: then this one lands locally.
        """
        if not self.backend.writable:
            return None
        if self.pending is not None:
            self.pending.add(kind, key)  # before anything lands: cleared once it is uploaded
        outcome, theirs = self._upload(kind, key, body, record)
        if outcome is not _Upload.FAILED and self.pending is not None:
            self.pending.remove(kind, key)
        return theirs

    def flush_pending(self) -> tuple[int, int]:
        """Upload what earlier runs journalled as pending; (uploaded, still pending)."""
        self._flush_due = False
        if self.pending is None or not self.backend.writable or self.offline:
            return 0, len(self.pending or ())
        uploaded = 0
        with self.pending.exclusive() as mine:
            if not mine:
                return 0, len(self.pending)
            for kind, key in self.pending.items():
                body = self._local.local_record(kind, key)
                if body is None:  # being uploaded by its own run, or that run was killed
                    if self.pending.age_s(kind, key) > _ABANDONED_S:
                        self.pending.remove(kind, key)
                    continue
                outcome, _ = self._upload(kind, key, body, json.loads(body))
                if outcome is _Upload.FAILED:
                    if self.offline:
                        break
                    continue
                self.pending.remove(kind, key)
                uploaded += outcome is _Upload.LANDED
        left = len(self.pending)
        if uploaded or left:
            self._notify(f"remote store: uploaded {uploaded} record(s) made while "
                         f"{self.backend.url} was out of reach; {left} still pending")
        return uploaded, left

    def _upload(self, kind: str, key: str, body: bytes,
                record: dict[str, Any]) -> tuple[_Upload, dict[str, Any] | None]:
        if self.offline:
            return _Upload.FAILED, None
        data: dict[str, bytes] = {}

        def read(digest: str) -> bytes | None:
            if digest not in data and (blob := self._local.local_blob(digest)) is not None:
                data[digest] = blob
            return data.get(digest)

        try:
            blobs = blob_closure(record, read)
            todo = [d for d in blobs if d not in self._pushed]
            self._map(lambda d: self.backend.put_blob(d, data[d]), todo)
            self._pushed.update(todo)
            if self.backend.put_record(kind, key, wrap(kind, key, body, blobs)):
                if kind in self._listed:
                    self._listed[kind].add(key)
                return _Upload.LANDED, None
            theirs = None if (kind, key) in self._rejected else self._download(kind, key, self._map)
        except RemoteUnavailableError as exc:
            self.go_offline(exc)
            return _Upload.FAILED, None
        except InfraError as exc:
            self.report(f"could not upload {kind}/{key} to {self.backend.url}: {exc}; "
                         f"the record lands in the local store only (pending: the next run "
                         f"or `python -m evaluator remote push` uploads it)")
            return _Upload.FAILED, None
        if theirs is None:
            self.report(f"{self.backend.url} holds a record for {kind}/{key} that this machine "
                         f"refused; the remote keeps it (it is write-once), this store its own")
            return _Upload.THEIRS, None
        return _Upload.THEIRS, self._land(kind, key, theirs)

    # internals -------------------------------------------------------------------------------
    def _keys(self, kind: str) -> set[str]:
        with self._lock:
            if kind not in self._listed:
                if self.offline:
                    return set()
                try:
                    self._listed[kind] = self.backend.record_keys(kind)
                except RemoteUnavailableError as exc:
                    self.go_offline(exc)
                    return set()
            keys = self._listed[kind]
            flush, self._flush_due = self._flush_due, False
        if flush:  # the remote answers: what earlier runs could not upload goes up now
            self.flush_pending()
        return keys

    def go_offline(self, exc: Exception) -> None:
        if self.offline:
            return
        self.offline = True
        pending = " (what it produces is journalled as pending and uploaded by the next run " \
                  "that reaches the remote, or by `python -m evaluator remote push`)" \
            if self.backend.writable else ""
        self.report(f"{self.backend.url} is out of reach ({exc}); this run goes on against "
                     f"the local store alone{pending}")

    def _download(self, kind: str, key: str, mapper: Callable[..., list[Any]]) -> _Download | None:
        raw = self.backend.get_record(kind, key)
        if raw is None:
            return None  # listed earlier, gone now: nothing to use
        try:
            body, record, digests = unwrap(kind, key, raw)
            needed = [d for d in digests if not self._local.has_local_blob(d)]
            blobs = dict(zip(needed, mapper(self.backend.get_blob, needed), strict=True))
            for digest, data in blobs.items():
                if data is None:
                    raise RejectedRecord(f"its blob {digest} is missing from the remote")
                if hash_bytes(data) != digest:
                    raise RejectedRecord(f"its blob {digest} does not match its blake3")
        except RejectedRecord as bad:
            self._rejected.add((kind, key))
            self.report(f"ignored record {kind}/{key} from {self.backend.url}: {bad.reason}; "
                         f"it is treated as absent and the target runs again here")
            return None
        return body, record, blobs

    def _land(self, kind: str, key: str, got: _Download) -> dict[str, Any]:
        body, record, blobs = got
        for digest, data in blobs.items():
            self._local.land_blob(digest, data)  # blobs first: a record never names a hole
        return self._local.land_record(kind, key, body, record)

    def _map(self, fn: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
        items = list(items)
        if len(items) < 2:
            return [fn(i) for i in items]
        with self._lock:
            if self._pool is None or self._pool_pid != os.getpid():  # a pool does not survive fork
                self._pool, self._pool_pid = ThreadPoolExecutor(_WORKERS), os.getpid()
            pool = self._pool
        return list(pool.map(fn, items))

    def report(self, line: str) -> None:
        line = f"remote store: {line}"
        self.problems.append(line)
        self._notify(line)


def _serial(fn: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
    return [fn(i) for i in items]
