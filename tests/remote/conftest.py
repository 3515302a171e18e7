"""A real moto S3 server on loopback, a fresh bucket per test, and a count of every request.

The server runs in its own process (`python -m moto.server`), so requests cross a real socket
and the test's threads do not share a GIL with it. Without it the tests skip on a workstation
but fail in CI (CI=true), where a skip would hide a broken setup.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.remote import RemoteConfig, S3Remote
from evaluator.store import Store
from tests.remote.support import (
    MakeRemote,
    MakeStore,
    Requests,
    TeamBucket,
    s3_client,
    start_moto,
    start_team_bucket,
)


@pytest.fixture(scope="session")
def moto_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, endpoint = start_moto(tmp_path_factory.mktemp("moto") / "server.log")
    yield endpoint
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def requests() -> Requests:
    return Requests()


@pytest.fixture
def bucket(moto_endpoint: str) -> str:
    name = f"team-{uuid.uuid4().hex[:12]}"
    s3_client(moto_endpoint).create_bucket(Bucket=name)
    return name


@pytest.fixture
def make_remote(moto_endpoint: str, bucket: str, requests: Requests) -> MakeRemote:
    """An S3Remote on the test's bucket (prefix team/cache) whose requests are counted."""
    def make(mode: str = "readwrite", page_size: int = 1000, endpoint: str = moto_endpoint) -> S3Remote:
        config = RemoteConfig.parse(f"s3://{bucket}/team/cache", mode, endpoint)
        return S3Remote(config, client_factory=lambda c: s3_client(endpoint, requests.hook),
                        page_size=page_size)
    return make


@pytest.fixture
def make_store(tmp_path: Path, make_remote: MakeRemote) -> MakeStore:
    """A Store with its own empty local directory (one "machine") in front of the bucket."""
    machines = iter(range(1000))

    def make(mode: str = "readwrite", page_size: int = 1000) -> Store:
        return Store(tmp_path / f"machine-{next(machines)}", make_remote(mode, page_size),
                     notify=lambda line: None)
    return make


@pytest.fixture(scope="session")
def team_bucket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamBucket]:
    proc, team = start_team_bucket(tmp_path_factory.mktemp("moto-iam") / "server.log")
    yield team
    proc.terminate()
    proc.wait(timeout=10)
