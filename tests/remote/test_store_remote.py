"""Stores on two "machines" (empty local directories) sharing one moto bucket."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from evaluator.store import Store
from tests.helpers import free_port
from tests.remote.support import KEY, MakeRemote, MakeStore, Requests, put_attempt, s3_client


def test_second_machine_runs_nothing_and_reads_identical_bytes(make_store: MakeStore) -> None:
    first, second = make_store(), make_store()
    keys = [f"{i:064x}" for i in range(5)]
    for key in keys:
        put_attempt(first, key)
    assert all(second.has("attempt", k) for k in keys)  # nothing to run on the second
    for key in keys:
        assert second.record_path("attempt", key).read_bytes() == \
            first.record_path("attempt", key).read_bytes()
    blobs = sorted(p.relative_to(first.root) for p in (first.root / "blobs").rglob("*/*"))
    assert blobs == sorted(p.relative_to(second.root) for p in (second.root / "blobs").rglob("*/*"))
    assert second.remote is not None and second.remote.problems == []


def test_reachable_blobs_travel_with_their_record(make_store: MakeStore) -> None:
    first, second = make_store(), make_store()
    rec = put_attempt(first)
    assert second.get("attempt", KEY) == rec
    steps = second.get_blob(rec["trajectory"])  # local now: read without the remote
    second.remote = None
    for step in json.loads(steps)["steps"]:
        assert second.get_blob(step["observation"]).startswith(b"output")


def overwrite(endpoint: str, bucket: str, name: str, data: bytes | None) -> None:
    """What a broken disk or a careless admin does to one object (None deletes it)."""
    client = s3_client(endpoint)
    if data is None:
        client.delete_object(Bucket=bucket, Key=f"team/cache/{name}")
    else:
        client.put_object(Bucket=bucket, Key=f"team/cache/{name}", Body=data)


def test_corrupted_remote_blob_makes_the_record_absent(make_store: MakeStore, moto_endpoint: str,
                                                       bucket: str) -> None:
    first, second = make_store(), make_store()
    rec = put_attempt(first)
    overwrite(moto_endpoint, bucket, f"blobs/{rec['patch']}", b"rm -rf /")
    assert not second.has("attempt", KEY) and second.get("attempt", KEY) is None
    assert second.remote is not None and len(second.remote.problems) == 1
    assert f"ignored record attempt/{KEY}" in second.remote.problems[0]
    assert "does not match its blake3" in second.remote.problems[0]
    assert not second.has_local_blob(rec["patch"])  # never landed


def test_missing_remote_blob_makes_the_record_absent(make_store: MakeStore, moto_endpoint: str,
                                                     bucket: str) -> None:
    first, second = make_store(), make_store()
    rec = put_attempt(first)
    overwrite(moto_endpoint, bucket, f"blobs/{rec['trajectory']}", None)
    assert not second.has("attempt", KEY)
    assert second.remote is not None and "is missing from the remote" in second.remote.problems[0]


def test_record_under_another_key_is_refused(make_store: MakeStore, moto_endpoint: str,
                                             bucket: str) -> None:
    first, second = make_store(), make_store()
    put_attempt(first)
    stolen = s3_client(moto_endpoint).get_object(
        Bucket=bucket, Key=f"team/cache/records/attempt/{KEY}.json")["Body"].read()
    overwrite(moto_endpoint, bucket, f"records/attempt/{'cd' * 32}.json", stolen)
    assert second.has("attempt", KEY) and not second.has("attempt", "cd" * 32)
    assert second.remote is not None and "names another kind or key" in second.remote.problems[0]


def test_a_refused_record_runs_again_here_and_the_remote_keeps_its_own(
        make_store: MakeStore, moto_endpoint: str, bucket: str) -> None:
    first, second = make_store(), make_store()
    rec = put_attempt(first)
    overwrite(moto_endpoint, bucket, f"blobs/{rec['patch']}", b"tampered")
    assert not second.has("attempt", KEY)
    again = put_attempt(second, patch=b"a fresh patch\n")  # the target ran again here
    assert second.get_blob(again["patch"]) == b"a fresh patch\n"
    assert second.remote is not None and "that this machine refused" in second.remote.problems[-1]


def test_corrupted_blob_read_directly_is_refused(make_store: MakeStore, moto_endpoint: str,
                                                bucket: str) -> None:
    first, second = make_store(), make_store()
    digest = first.put_blob(b"never named by a record")
    overwrite(moto_endpoint, bucket, f"blobs/{digest}", b"other bytes")
    assert not second.has_blob(digest)
    assert second.remote is not None and f"refused blob {digest}" in second.remote.problems[0]


def test_refusals_are_reported_on_stderr(tmp_path: Path, make_store: MakeStore,
                                         make_remote: MakeRemote, moto_endpoint: str, bucket: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    rec = put_attempt(make_store())
    overwrite(moto_endpoint, bucket, f"blobs/{rec['patch']}", b"tampered")
    assert not Store(tmp_path / "ci", make_remote(mode="read")).has("attempt", KEY)
    assert f"remote store: ignored record attempt/{KEY}" in capsys.readouterr().err


def test_existence_of_10000_keys_is_one_paginated_list(make_store: MakeStore, make_remote: MakeRemote,
                                                      requests: Requests) -> None:
    writer = make_remote()  # the records' bodies do not matter here: only their names are listed
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: writer.put_record("grade", f"{i:064x}", b"{}"), range(250)))
    reader = make_store(mode="read", page_size=100)
    requests.clear()
    assert not any(reader.has("grade", f"{i:064x}") for i in range(1000, 11000))
    assert requests.seen == ["list"] * 3  # 250 keys in pages of 100; no HEAD, no GET


def test_a_listed_record_costs_one_get_then_nothing(make_store: MakeStore,
                                                    requests: Requests) -> None:
    writer, reader = make_store(), make_store(mode="read")
    keys = [f"{i:064x}" for i in range(10)]
    for key in keys:
        writer.put("grade", key, {"status": "resolved"})
    requests.clear()
    assert all(reader.has("grade", k) for k in keys)
    assert sorted(requests.seen) == ["get"] * 10 + ["list"]
    requests.clear()
    assert all(reader.has("grade", k) and reader.get("grade", k) for k in keys)
    assert requests.count() == 0  # a no-op rerun on a warm cache never leaves the machine


def test_read_mode_run_never_writes(make_store: MakeStore, requests: Requests) -> None:
    put_attempt(make_store())
    reader = make_store(mode="read")
    requests.clear()
    assert reader.has("attempt", KEY) and reader.query("attempt", subject="agent-a")
    put_attempt(reader, "cd" * 32)  # lands here only
    assert requests.count("put") == 0 and requests.count("other") == 0
    assert reader.has_local("attempt", "cd" * 32) and not make_store().has("attempt", "cd" * 32)


def test_query_sees_the_records_of_every_machine(make_store: MakeStore) -> None:
    first, second = make_store(), make_store()
    put_attempt(first, KEY)
    put_attempt(first, "cd" * 32)
    put_attempt(second, "ef" * 32)
    found = [r["key"] for r in make_store().query("attempt", subject="agent-a")]
    assert found == [KEY, "cd" * 32, "ef" * 32]


def test_machines_racing_on_one_key_all_keep_the_one_that_landed(make_store: MakeStore) -> None:
    stores = [make_store() for _ in range(8)]
    with ThreadPoolExecutor(8) as pool:
        landed = list(pool.map(lambda s: s.put("grade", KEY, {"by": s.root.name}), stores))
    assert landed.count(True) == 1
    winner = stores[landed.index(True)].root.name
    assert all((s.get("grade", KEY) or {}).get("by") == winner for s in stores + [make_store()])
    assert not any(s.remote and s.remote.problems for s in stores)


def test_failed_upload_keeps_the_local_record_and_says_so(tmp_path: Path,
                                                          make_remote: MakeRemote) -> None:
    lines: list[str] = []
    remote = make_remote(endpoint=f"http://127.0.0.1:{free_port()}")
    store = Store(tmp_path, remote, notify=lines.append)
    assert store.put("grade", KEY, {"status": "resolved"}) and store.has_local("grade", KEY)
    assert len(lines) == 1 and "is out of reach" in lines[0]
    assert "goes on against the local store alone" in lines[0] and "pending" in lines[0]
    assert store.remote is not None and store.remote.pending is not None
    assert store.remote.pending.items() == [("grade", KEY)]
