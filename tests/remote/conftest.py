"""A real moto S3 server on loopback, a fresh bucket per test, and a count of every request.

The server runs in its own process (`python -m moto.server`), so requests cross a real socket
and the test's threads do not share a GIL with it. Without it the tests skip on a workstation
but fail in CI (CI=true), where a skip would hide a broken setup.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evaluator.remote import RemoteConfig, S3Remote
from evaluator.store import Store
from tests.helpers import unavailable

_START_S = 30.0



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def start_moto(log: Path, env: dict[str, str] | None = None,
               port: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """Start `moto.server` on `port` (default: a free loopback port); fail (CI) or skip when it
    does not answer."""
    port = port or free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                 "-p", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
    deadline = time.monotonic() + _START_S
    while not _answers(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            unavailable(f"moto S3 server did not start on 127.0.0.1:{port}: "
                         f"{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)
    return proc, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="session")
def moto_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, endpoint = start_moto(tmp_path_factory.mktemp("moto") / "server.log")
    yield endpoint
    proc.terminate()
    proc.wait(timeout=10)


class Requests:
    """Every HTTP request the counted clients sent, labelled list, get, head, put or other."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def hook(self, request: Any, **_: Any) -> None:
        method = request.method
        listing = method == "GET" and "list-type=2" in request.url
        self.seen.append("list" if listing else {"GET": "get", "HEAD": "head",
                                                 "PUT": "put"}.get(method, "other"))

    def count(self, label: str | None = None) -> int:
        return len(self.seen) if label is None else self.seen.count(label)

    def clear(self) -> None:
        self.seen.clear()


def s3_client(endpoint: str, hook: Callable[..., None] | None = None,
              credential: tuple[str, str] = ("testing", "testing"), service: str = "s3") -> Any:
    import boto3
    from botocore.config import Config

    client = boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id=credential[0], aws_secret_access_key=credential[1],
                          config=Config(retries={"mode": "standard", "max_attempts": 1},
                                        max_pool_connections=16))
    if hook is not None:
        client.meta.events.register(f"before-send.{service}", hook)
    return client


@pytest.fixture
def requests() -> Requests:
    return Requests()


@pytest.fixture
def bucket(moto_endpoint: str) -> str:
    name = f"team-{uuid.uuid4().hex[:12]}"
    s3_client(moto_endpoint).create_bucket(Bucket=name)
    return name


MakeRemote = Callable[..., S3Remote]


@pytest.fixture
def make_remote(moto_endpoint: str, bucket: str, requests: Requests) -> MakeRemote:
    """An S3Remote on the test's bucket (prefix team/cache) whose requests are counted."""
    def make(mode: str = "readwrite", page_size: int = 1000, endpoint: str = moto_endpoint) -> S3Remote:
        config = RemoteConfig.parse(f"s3://{bucket}/team/cache", mode, endpoint)
        return S3Remote(config, client_factory=lambda c: s3_client(endpoint, requests.hook),
                        page_size=page_size)
    return make


MakeStore = Callable[..., Store]


@pytest.fixture
def make_store(tmp_path: Path, make_remote: MakeRemote) -> MakeStore:
    """A Store with its own empty local directory (one "machine") in front of the bucket."""
    machines = iter(range(1000))

    def make(mode: str = "readwrite", page_size: int = 1000) -> Store:
        return Store(tmp_path / f"machine-{next(machines)}", make_remote(mode, page_size),
                     notify=lambda line: None)
    return make


# The requests the IAM fixture sends before moto starts checking credentials: the bucket, then
# a user, its policy and its access key for each of the two credentials.
_SETUP_ACTIONS = 7


@dataclass(frozen=True)
class TeamBucket:
    """A moto server that checks IAM, with a bucket, a read credential and a write credential."""

    endpoint: str
    bucket: str
    reader: tuple[str, str]
    writer: tuple[str, str]


def _user(iam: Any, name: str, actions: list[str], bucket: str) -> tuple[str, str]:
    arns = [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]
    iam.create_user(UserName=name)
    iam.put_user_policy(UserName=name, PolicyName="team-cache", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": actions, "Resource": arns}]}))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]


@pytest.fixture(scope="session")
def team_bucket(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TeamBucket]:
    proc, endpoint = start_moto(tmp_path_factory.mktemp("moto-iam") / "server.log",
                                {"INITIAL_NO_AUTH_ACTION_COUNT": str(_SETUP_ACTIONS)})
    bucket, read = "team-cache", ["s3:GetObject", "s3:ListBucket"]
    s3_client(endpoint).create_bucket(Bucket=bucket)
    iam = s3_client(endpoint, service="iam")
    yield TeamBucket(endpoint, bucket, _user(iam, "ci-reader", read, bucket),
                     _user(iam, "ci-writer", [*read, "s3:PutObject"], bucket))
    proc.terminate()
    proc.wait(timeout=10)
