"""Leases through the remote: stores on two "machines" (their own local directories, so their
flocks never meet) on one moto bucket run a target once between them."""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

from evaluator.remote import RemoteConfig, S3Remote
from evaluator.store import Store
from tests.helpers import free_port
from tests.remote.support import (
    KEY,
    MakeRemote,
    MakeStore,
    TeamBucket,
    put_attempt,
    quick_leases,
    s3_client,
)

DEAD = json.dumps({"holder": "pid 4242 on ci-runner-7"}).encode()


def run_once(store: Store, ran: list[str], inside: Callable[[], None] = lambda: None,
             waiting: Callable[[str], None] = lambda holder: None) -> None:
    """What an attempt action does: the lease, then the record checked, then (if absent) the
    paid work, which lands the record."""
    with store.leases.hold("attempt", KEY, lambda: store.has_local("attempt", KEY), waiting):
        if store.has("attempt", KEY):
            return
        ran.append(str(store.root))
        inside()
        put_attempt(store)


def lease_of(store: Store) -> dict[str, object] | None:
    assert store.remote is not None
    got = store.remote.backend.read_lease("attempt", KEY)
    return None if got is None else json.loads(got[0])


def test_second_machine_waits_for_the_holder_and_pays_nothing(make_store: MakeStore) -> None:
    first, second = make_store(), make_store()
    assert second.has("attempt", KEY) is False  # its listing is taken now, before the record
    ran: list[str] = []
    told = threading.Event()
    heard: list[str] = []

    def waiting(holder: str) -> None:
        heard.append(holder)
        told.set()

    waiter = threading.Thread(target=run_once, args=(second, ran),
                              kwargs={"waiting": waiting})
    with first.leases.hold("attempt", KEY, lambda: first.has_local("attempt", KEY)):
        waiter.start()
        assert told.wait(30), "the second machine never saw the first one's lease"
        put_attempt(first)
    waiter.join(30)
    assert ran == []  # the second machine ran nothing: it landed the first one's record
    assert second.record_path("attempt", KEY).read_bytes() == \
        first.record_path("attempt", KEY).read_bytes()
    assert f"pid {os.getpid()}" in heard[0] and "s3://" in heard[0]
    assert lease_of(first) is None  # released once the record was pushed


def test_a_failed_holder_releases_its_lease_at_once(make_store: MakeStore) -> None:
    first, second = make_store(), make_store()
    quick_leases(second, ttl_s=3600)  # a takeover would never come: only a release lets it in
    try:
        with first.leases.hold("attempt", KEY, lambda: first.has_local("attempt", KEY)):
            raise OSError("the sandbox died")
    except OSError:
        pass
    assert lease_of(first) is None
    ran: list[str] = []
    run_once(second, ran)
    assert ran == [str(second.root)]


def test_a_lease_nobody_renews_is_taken_over_after_its_ttl(make_store: MakeStore) -> None:
    store = make_store()
    assert store.remote is not None
    store.remote.backend.create_lease("attempt", KEY, DEAD)  # a job killed mid-attempt
    quick_leases(store, ttl_s=0.5)
    ran: list[str] = []
    run_once(store, ran)
    assert ran == [str(store.root)]
    assert any("took over the lease of attempt/" in p and "pid 4242 on ci-runner-7" in p
               for p in store.remote.problems), store.remote.problems
    assert lease_of(store) is None


def test_the_taker_holds_the_lease_while_it_runs(make_store: MakeStore) -> None:
    store = make_store()
    assert store.remote is not None
    store.remote.backend.create_lease("attempt", KEY, DEAD)
    quick_leases(store, ttl_s=0.3)
    seen: list[dict[str, object] | None] = []
    run_once(store, [], inside=lambda: seen.append(lease_of(store)))
    assert seen and seen[0] is not None
    assert seen[0]["holder"] == f"pid {os.getpid()} on {os.uname().nodename}"


def test_a_live_holder_is_renewed_and_never_taken_over(make_store: MakeStore) -> None:
    first, second = make_store(), make_store()
    for store in (first, second):
        quick_leases(store, ttl_s=1.0)  # renewed every 0.33 s
    ran: list[str] = []
    entered = threading.Event()
    waiter = threading.Thread(target=run_once, args=(second, ran),
                              kwargs={"inside": entered.set})
    with first.leases.hold("attempt", KEY, lambda: first.has_local("attempt", KEY)):
        waiter.start()
        beats = []
        for _ in range(6):  # three TTLs with the waiter watching
            entered.wait(0.5)
            beats.append((lease_of(first) or {}).get("beat"))
        assert not entered.is_set(), "the waiter took a lease that was being renewed"
        put_attempt(first)
    waiter.join(30)
    assert ran == [] and len(set(beats)) > 1  # it was renewed, and the waiter ran nothing


def test_of_two_waiters_on_an_expired_lease_one_takes_it(make_store: MakeStore) -> None:
    stores = [make_store() for _ in range(3)]
    assert stores[0].remote is not None
    stores[0].remote.backend.create_lease("attempt", KEY, DEAD)
    ran: list[str] = []
    running, most = [0], [0]
    lock = threading.Lock()

    def inside() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threading.Event().wait(0.5)
        with lock:
            running[0] -= 1

    for store in stores:
        quick_leases(store, ttl_s=0.4)
    threads = [threading.Thread(target=run_once, args=(s, ran), kwargs={"inside": inside})
               for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(ran) == 1 and most[0] == 1  # one ran it, the others landed its record
    assert all(s.has_local("attempt", KEY) for s in stores)


def test_a_stale_etag_takes_nothing(make_remote: MakeRemote) -> None:
    """The takeover's condition itself: two waiters that saw one ETag, one write wins."""
    remote = make_remote()
    etag = remote.create_lease("attempt", KEY, DEAD)
    assert etag is not None and remote.create_lease("attempt", KEY, DEAD) is None
    won = remote.replace_lease("attempt", KEY, b'{"holder": "b"}', etag)
    assert won is not None and remote.replace_lease("attempt", KEY, b'{"holder": "c"}', etag) is None
    assert remote.delete_lease("attempt", KEY, etag) is False  # not the one this ETag names
    assert remote.delete_lease("attempt", KEY, won) is True
    assert remote.read_lease("attempt", KEY) is None


def test_an_unreachable_remote_leaves_the_local_lease_said_once(tmp_path: Path,
                                                               make_remote: MakeRemote) -> None:
    store = Store(tmp_path / "machine", make_remote(endpoint=f"http://127.0.0.1:{free_port()}"),
                  notify=lambda line: None)
    ran: list[str] = []
    run_once(store, ran)
    other = "cd" * 32
    with store.leases.hold("attempt", other, lambda: False):
        ran.append("other")
    assert ran == [str(store.root), "other"]
    assert store.remote is not None and len(store.remote.problems) == 1
    assert "out of reach" in store.remote.problems[0]


def test_a_read_only_remote_leaves_the_local_lease_said_once(make_store: MakeStore) -> None:
    store = make_store(mode="read")
    for key in ("ab" * 32, "cd" * 32):
        with store.leases.hold("attempt", key, lambda: False):
            pass
    assert store.remote is not None and len(store.remote.problems) == 1
    assert "EVAL_REMOTE_MODE is 'read'" in store.remote.problems[0]


def test_a_writer_that_may_not_delete_releases_by_a_mark(tmp_path: Path,
                                                         team_bucket: TeamBucket) -> None:
    """The README's write credential has no s3:DeleteObject: a lease is released all the same,
    by a conditional overwrite, and the next machine takes it at once (not after a TTL)."""
    config = RemoteConfig.parse(f"s3://{team_bucket.bucket}/leases-{uuid.uuid4().hex[:8]}",
                                "readwrite", team_bucket.endpoint)
    first, second = (
        Store(tmp_path / name, S3Remote(config, client_factory=lambda c: s3_client(
            team_bucket.endpoint, credential=team_bucket.writer)), notify=lambda line: None)
        for name in ("ci-1", "ci-2"))
    with first.leases.hold("attempt", KEY, lambda: False):
        pass
    assert first.remote is not None and len(first.remote.problems) == 1
    assert "may not delete leases" in first.remote.problems[0]
    assert (lease_of(first) or {}).get("released")
    quick_leases(second, ttl_s=3600)  # a takeover would never come: only the mark lets it in
    ran: list[str] = []
    run_once(second, ran, inside=lambda: ran.append(str(lease_of(second))))
    assert ran[0] == str(second.root) and "released" not in ran[1]
