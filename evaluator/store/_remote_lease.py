"""Leases through the remote: two machines with their own stores on one team remote never pay
for one key twice.

A CI job does not see another job's flock, and its listing of the remote was taken when its run
began. So a target about to run, once its local lease is held, also takes a lease object in the
remote, `leases/<kind>/<key>`, created only if absent (S3's conditional put, If-None-Match). Its
holder renews it every third of its time to live (a heartbeat thread: a crashed job has no kernel
to drop its lease, so an unrenewed lease is a dead one) and deletes it once the block ends, by
which time its record has been pushed (`Store.put` pushes before it lands).

A credential without s3:DeleteObject (the README's advice for records and blobs) cannot delete
it: then the lease is released by overwriting it with a released mark (If-Match its ETag), said
once per run, and a waiter takes a released lease as it takes an expired one.

A machine that finds the lease held asks the remote for the record every `poll_s` and, once its
holder pushes it, lands it and runs nothing. A waiter that has seen one ETag for longer than the
time to live, by its own monotonic clock (so the machines' clocks need not agree), takes the
lease over by overwriting exactly that ETag (If-Match): of two waiters, one gets it. Whoever gets
the lease asks for the record once more before it runs, since the holder may have pushed it and
let go between the waiter's last look and its take.

A remote that cannot be reached, or may not be written ($EVAL_REMOTE_MODE=read), leaves the local
lease alone: said once per run, and the run goes on.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator

from evaluator.errors import InfraError
from evaluator.remote import MODE_ENV, RemoteAccessError, RemoteUnavailableError
from evaluator.store._lease import Landed, Leases, Waiting
from evaluator.store._through import RemoteCache

# A holder renews every TTL/3, so a lease is taken over only after three missed renewals.
TTL_S = 60.0
POLL_S = 1.0


class RemoteLeases:
    """`local`'s lease first (runs on this machine), then the remote's (runs on others)."""

    def __init__(self, local: Leases, cache: RemoteCache, *, ttl_s: float = TTL_S,
                 poll_s: float = POLL_S) -> None:
        self.local = local
        self.cache = cache
        self.ttl_s = ttl_s
        self.poll_s = poll_s
        self._off = False  # a lease write was refused: local leases only for the rest of the run
        self.no_delete = False  # a delete was refused: release by a released mark instead

    @contextlib.contextmanager
    def hold(self, kind: str, key: str, landed: Landed,
             waiting: Waiting = lambda holder: None) -> Iterator[None]:
        with self.local.hold(kind, key, landed, waiting):
            held = None if landed() else self._acquire(kind, key, landed, waiting)
            try:
                yield
            finally:
                if held is not None:
                    held.release()

    def _usable(self) -> bool:
        if self.cache.offline or self._off:
            return False  # the cache said so once already, or `_disable` did
        if not self.cache.backend.writable:
            self._disable(f"${MODE_ENV} is 'read'")
            return False
        return True

    def _disable(self, why: str) -> None:
        self._off = True
        self.cache.report(f"leases are held on this machine only ({why}): a run on another "
                          f"machine may run the same target at the same time")

    def _acquire(self, kind: str, key: str, landed: Landed, waiting: Waiting) -> _Held | None:
        """The remote lease, or None: the record landed from the remote (nothing to run), or
        the remote cannot hold leases this run (the local lease alone)."""
        try:
            while self._usable():
                if landed() or self.cache.fetch_now(kind, key):  # landed while we waited
                    return None
                etag = self._take(kind, key, waiting)
                if etag is None:
                    continue
                held = _Held(self, kind, key, etag)
                if self.cache.fetch_now(kind, key):  # pushed between our last look and our take
                    held.release()
                    return None
                held.start()
                return held
        except RemoteUnavailableError as exc:
            self.cache.go_offline(exc)
        except InfraError as exc:
            self._disable(str(exc))
        return None

    def _take(self, kind: str, key: str, waiting: Waiting) -> str | None:
        """Create the lease, or wait on its holder until it is released (None: look for the
        record again) or stops renewing it for a whole TTL (then take it over)."""
        backend = self.cache.backend
        seen, since, told = "", 0.0, False
        while True:
            etag = backend.create_lease(kind, key, self.body())
            if etag is not None:
                return etag
            current = backend.read_lease(kind, key)
            if current is None:
                return None  # released since: its record may be there now
            data, etag = current
            now = time.monotonic()
            if is_released(data):
                taken = backend.replace_lease(kind, key, self.body(), etag)
                if taken is not None:
                    return taken
                continue  # another machine took it first: look at it again
            if etag != seen:
                seen, since = etag, now
            elif now - since > self.ttl_s:
                taken = backend.replace_lease(kind, key, self.body(), etag)
                if taken is not None:
                    self.cache.report(f"took over the lease of {kind}/{key} from "
                                      f"{holder_of(data)}, which stopped renewing it "
                                      f"{self.ttl_s:.0f} s ago")
                    return taken
            if not told:
                waiting(f"{holder_of(data)} (through {backend.url})")
                told = True
            time.sleep(self.poll_s)
            if self.cache.fetch_now(kind, key):
                return None

    def released_body(self) -> bytes:
        return json.dumps({"holder": f"pid {os.getpid()} on {socket.gethostname()}",
                           "released": time.time()}).encode()

    def body(self, beat: int = 0) -> bytes:
        """A lease's content: who holds it and until when (for people; expiry is judged by the
        waiter's own clock). It changes at every beat, so each renewal has a new ETag."""
        now = time.time()
        return json.dumps({"holder": f"pid {os.getpid()} on {socket.gethostname()}",
                           "renewed": now, "expires": now + self.ttl_s, "ttl_s": self.ttl_s,
                           "beat": beat}).encode()


class _Held:
    """A remote lease this process holds, renewed by a thread until released."""

    def __init__(self, leases: RemoteLeases, kind: str, key: str, etag: str) -> None:
        self.leases, self.kind, self.key, self.etag = leases, kind, key, etag
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True,
                                        name=f"lease {kind}/{key}")

    def start(self) -> None:
        self._thread.start()

    def _beat(self) -> None:
        backend, beat = self.leases.cache.backend, 0
        while not self._stop.wait(self.leases.ttl_s / 3):
            beat += 1
            try:
                etag = backend.replace_lease(self.kind, self.key, self.leases.body(beat), self.etag)
            except InfraError as exc:
                self.leases.cache.report(f"could not renew the lease of {self.kind}/{self.key} "
                                         f"({exc}); another machine may take it over")
                return
            if etag is None:
                self.leases.cache.report(
                    f"the lease of {self.kind}/{self.key} was taken over by another machine "
                    f"(not renewed for {self.leases.ttl_s:.0f} s); its record is create-once, so "
                    f"one of the two lands")
                return
            self.etag = etag

    def release(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        leases, backend = self.leases, self.leases.cache.backend
        try:
            if not leases.no_delete:
                try:
                    backend.delete_lease(self.kind, self.key, self.etag)
                    return
                except RemoteAccessError as exc:
                    leases.no_delete = True
                    leases.cache.report(
                        f"this credential may not delete leases ({exc}); they are released by "
                        f"overwriting them instead (grant s3:DeleteObject on the prefix's "
                        f"leases/ to remove them)")
            backend.replace_lease(self.kind, self.key, leases.released_body(), self.etag)
        except InfraError as exc:
            self.leases.cache.report(f"could not release the lease of {self.kind}/{self.key} "
                                     f"({exc}); it expires {self.leases.ttl_s:.0f} s after its "
                                     f"last renewal")


def _fields(data: bytes) -> dict[str, object]:
    try:
        fields = json.loads(data)
    except ValueError:
        return {}
    return fields if isinstance(fields, dict) else {}


def holder_of(data: bytes) -> str:
    """Who a lease's content names, for a message."""
    holder = _fields(data).get("holder")
    return holder if isinstance(holder, str) else "another machine"


def is_released(data: bytes) -> bool:
    return "released" in _fields(data)
