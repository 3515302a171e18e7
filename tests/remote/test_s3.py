"""The transport against a real moto S3 server: blobs, write-once records, listings, errors."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from evaluator.remote import (
    RemoteAccessError,
    RemoteConfig,
    RemoteConfigError,
    RemoteUnavailableError,
    S3Remote,
)
from tests.helpers import free_port
from tests.remote.support import MakeRemote, Requests, s3_client

DIGEST = "ab" * 32


def test_blob_roundtrip_and_missing_blob(make_remote: MakeRemote) -> None:
    remote = make_remote()
    remote.put_blob(DIGEST, b"bytes")
    remote.put_blob(DIGEST, b"bytes")  # already there: kept, no error
    assert remote.get_blob(DIGEST) == b"bytes" and remote.get_blob("cd" * 32) is None


def test_a_record_is_written_once(make_remote: MakeRemote) -> None:
    remote = make_remote()
    assert remote.put_record("grade", DIGEST, b"first")
    assert not remote.put_record("grade", DIGEST, b"second")
    assert remote.get_record("grade", DIGEST) == b"first"


def test_concurrent_conditional_puts_land_exactly_one(make_remote: MakeRemote) -> None:
    remote = make_remote()
    with ThreadPoolExecutor(16) as pool:
        landed = list(pool.map(lambda i: remote.put_record("attempt", DIGEST, b"%d" % i), range(16)))
    assert landed.count(True) == 1
    assert remote.get_record("attempt", DIGEST) == b"%d" % landed.index(True)


def test_listing_is_one_paginated_list(make_remote: MakeRemote, requests: Requests) -> None:
    remote = make_remote(page_size=100)
    keys = {f"{i:064x}" for i in range(250)}
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda k: remote.put_record("grade", k, b"{}"), keys))
    requests.clear()
    assert remote.record_keys("grade") == keys and remote.record_keys("verdict") == set()
    assert requests.seen == ["list"] * 4  # 3 pages of grade, 1 (empty) of verdict


def test_read_mode_refuses_writes_without_a_request(make_remote: MakeRemote,
                                                    requests: Requests) -> None:
    remote = make_remote(mode="read")
    with pytest.raises(RemoteAccessError, match="EVAL_REMOTE_MODE is 'read'"):
        remote.put_record("grade", DIGEST, b"{}")
    with pytest.raises(RemoteAccessError):
        remote.put_blob(DIGEST, b"x")
    assert requests.count() == 0


def test_unreachable_endpoint_says_what_to_check(make_remote: MakeRemote) -> None:
    remote = make_remote(endpoint=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(RemoteUnavailableError, match="EVAL_REMOTE_ENDPOINT"):
        remote.record_keys("grade")


def test_missing_bucket_is_a_config_error(moto_endpoint: str) -> None:
    config = RemoteConfig.parse("s3://no-such-bucket-here", "read", moto_endpoint)
    remote = S3Remote(config, client_factory=lambda c: s3_client(moto_endpoint))
    with pytest.raises(RemoteConfigError, match="does not exist .* fix \\$EVAL_REMOTE"):
        remote.get_blob(DIGEST)
