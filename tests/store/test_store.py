import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from evaluator.errors import BadInputError, InfraError
from evaluator.store import Record, Store

KEY = "ab" * 32


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "store")


def test_blob_roundtrip_is_content_addressed(store: Store) -> None:
    digest = store.put_blob(b"hello")
    assert store.put_blob(b"hello") == digest
    assert store.get_blob(digest) == b"hello"


def test_missing_blob_is_a_clear_error(store: Store) -> None:
    with pytest.raises(BadInputError, match="not in the store"):
        store.get_blob("00" * 32)


def test_record_is_created_once_and_never_overwritten(store: Store) -> None:
    assert store.put("grade", KEY, {"status": "resolved"})
    assert not store.put("grade", KEY, {"status": "unresolved"})
    rec = store.get("grade", KEY)
    assert rec is not None and rec["status"] == "resolved"


def test_index_queries_by_column(store: Store) -> None:
    store.put("grade", KEY, {"task_set": "s", "task_id": "t", "status": "resolved"})
    store.put("grade", "cd" * 32, {"task_set": "s", "task_id": "u", "status": "unresolved"})
    assert [r["task_id"] for r in store.query("grade", task_set="s", status="resolved")] == ["t"]


def test_a_scan_leaves_out_what_does_not_parse_where_select_names_it(store: Store) -> None:
    class Note(Record):
        KIND = "note"
        text: str

    store.put("note", KEY, {"text": "kept", "later": "a field this code does not know"})
    store.put("note", "cd" * 32, {"text": 3})
    assert [n.text for n in store.select_readable(Note)] == ["kept"]
    with pytest.raises(BadInputError, match="field 'text'"):
        store.select(Note)


def test_reindex_rebuilds_from_records(store: Store) -> None:
    store.put("grade", KEY, {"task_id": "t"})
    fresh = Store(store.root)
    fresh.index.clear()  # as a crash between record and index leaves it
    assert fresh.query("grade") == []
    assert fresh.reindex() == 1 and fresh.query("grade")[0]["task_id"] == "t"


def test_errors_are_kept_beside_not_in_place_of_records(store: Store) -> None:
    store.put_error("attempt", KEY, InfraError("engine gone"), task_id="t", subject="a")
    store.put_error("attempt", KEY, InfraError("engine gone"))
    assert store.error_count("attempt", KEY) == 2 and not store.has("attempt", KEY)
    note = store.errors("attempt", KEY)[0]
    assert (note["cause"], note["message"], note["task_id"], note["subject"]) == (
        "InfraError", "engine gone", "t", "a")


def _race(root: str, n: int, out: "multiprocessing.Queue[bool]") -> None:
    out.put(Store(root).put("attempt", KEY, {"writer": n}))


def test_two_processes_never_land_two_records(tmp_path: Path) -> None:
    q: multiprocessing.Queue[bool] = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=_race, args=(str(tmp_path), n, q)) for n in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    assert sorted(q.get() for _ in procs) == [False] * 7 + [True]


def _write_forever(root: str) -> None:
    s = Store(root)
    i = 0
    while True:
        s.put("grade", f"{i:064x}", {"payload": "x" * 100_000})
        i += 1


def test_sigkill_mid_write_leaves_only_whole_records(tmp_path: Path) -> None:
    p = multiprocessing.Process(target=_write_forever, args=(str(tmp_path),))
    p.start()
    time.sleep(1.0)
    assert p.pid is not None
    os.kill(p.pid, signal.SIGKILL)
    p.join()
    records = list(Store(tmp_path).iter_records("grade"))  # each parses as whole JSON
    assert records and all(len(r["payload"]) == 100_000 for r in records)


def _open_at_once(root: str, n: int, barrier: Any) -> None:
    store = Store(root, remote=None)
    barrier.wait()
    store.index.add("grade", f"{n:064x}", {"n": n})


def test_processes_opening_a_new_index_at_once_all_land(tmp_path: Path) -> None:
    # Unguarded, SQLite's switch to WAL failed "database is locked" in about one round in
    # ten, so 30 rounds.
    for round_ in range(30):
        root, barrier = str(tmp_path / str(round_)), multiprocessing.Barrier(12)
        procs = [multiprocessing.Process(target=_open_at_once, args=(root, n, barrier))
                 for n in range(12)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        assert [p.exitcode for p in procs] == [0] * 12
        assert len(Store(root, remote=None).index.keys("grade")) == 12
