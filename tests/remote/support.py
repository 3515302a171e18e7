"""Shared by the remote tests: moto's S3 server, a client that records requests, and the callables
the fixtures hand out."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.hashing import canonical_json
from evaluator.remote import S3Remote
from evaluator.store import FileLeases, RemoteLeases, Store
from tests.helpers import free_port, unavailable

_START_S = 30.0




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


MakeRemote = Callable[..., S3Remote]


MakeStore = Callable[..., Store]


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


def start_team_bucket(log: Path) -> tuple[subprocess.Popen[bytes], TeamBucket]:
    """A moto server that checks IAM once set up, with the bucket and its two credentials."""
    proc, endpoint = start_moto(log, {"INITIAL_NO_AUTH_ACTION_COUNT": str(_SETUP_ACTIONS)})
    bucket, read = "team-cache", ["s3:GetObject", "s3:ListBucket"]
    s3_client(endpoint).create_bucket(Bucket=bucket)
    iam = s3_client(endpoint, service="iam")
    return proc, TeamBucket(endpoint, bucket, _user(iam, "ci-reader", read, bucket),
                            _user(iam, "ci-writer", [*read, "s3:PutObject"], bucket))


KEY = "ab" * 32


def put_attempt(store: Store, key: str = KEY, patch: bytes = b"diff --git a b\n") -> dict[str, Any]:
    """An attempt as the pipeline writes one: a patch blob and a trajectory of observations."""
    steps = [{"n": i, "observation": store.put_blob(f"output {i} of {key}".encode())}
             for i in range(3)]
    trajectory = store.put_blob(canonical_json({"key": key, "steps": steps}))
    record = {"patch": store.put_blob(patch), "trajectory": trajectory, "status": "done",
              "task_set": "demo", "subject": "agent-a"}
    assert store.put("attempt", key, record)
    rec = store.get("attempt", key)
    assert rec is not None
    return rec


def quick_leases(store: Store, ttl_s: float) -> RemoteLeases:
    """The store's remote leases with a short time to live and a fast poll, for tests of
    expiry; set on the store and returned."""
    assert store.remote is not None
    store.leases = RemoteLeases(FileLeases(store.root), store.remote, ttl_s=ttl_s, poll_s=0.05)
    return store.leases
