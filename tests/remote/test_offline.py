"""Offline first: with the remote out of reach a run goes on locally and says so; what it made is
uploaded by the next run that reaches the remote, or by `python -m evaluator remote push`.

Each test starts and stops its own moto server on one loopback port, so "the remote is down" is
a real refused connection and "it is back" the same endpoint answering again (moto keeps no
data across a restart: the bucket is made again, as an empty remote).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.remote import RemoteConfig, S3Remote
from evaluator.store import Store
from tests.helpers import free_port
from tests.remote.support import Requests, s3_client, start_moto

BUCKET = "offline-team"
KEY, OTHER = "ab" * 32, "cd" * 32


class Moto:
    """A moto server the test starts and stops on one fixed port."""

    def __init__(self, log: Path) -> None:
        self.port, self.log = free_port(), log
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc, _ = start_moto(self.log, port=self.port)
        s3_client(self.endpoint).create_bucket(Bucket=BUCKET)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def moto(tmp_path: Path) -> Iterator[Moto]:
    server = Moto(tmp_path / "moto.log")
    yield server
    server.stop()


@pytest.fixture
def machine(tmp_path: Path, moto: Moto) -> Callable[..., tuple[Store, list[str], Requests]]:
    """A run on a machine: its store (one local directory per name), its lines, its requests."""
    def make(name: str = "a") -> tuple[Store, list[str], Requests]:
        lines: list[str] = []
        requests = Requests()
        config = RemoteConfig.parse(f"s3://{BUCKET}/team", "readwrite", moto.endpoint)
        remote = S3Remote(config, client_factory=lambda c: s3_client(moto.endpoint, requests.hook))
        return Store(tmp_path / name, remote, notify=lines.append), lines, requests
    return make


def test_unreachable_remote_says_so_once_and_runs_locally(machine: Callable[..., Any]) -> None:
    store, lines, requests = machine()
    assert not store.has("grade", KEY)  # not here, and the remote cannot say: run it
    sent = requests.count()
    assert store.put("grade", KEY, {"status": "resolved"}) and store.has("grade", KEY)
    assert store.put("grade", OTHER, {"status": "failed"}) and not store.has("grade", "ef" * 32)
    assert requests.count() == sent  # after the first failure nothing more is sent
    assert len(lines) == 1 and "out of reach" in lines[0] and "local store alone" in lines[0]
    assert store.remote is not None and store.remote.pending is not None
    assert store.remote.pending.items() == [("grade", KEY), ("grade", OTHER)]


def test_next_run_that_reaches_the_remote_uploads_what_was_made_offline(
    moto: Moto, machine: Callable[..., Any]
) -> None:
    moto.start()
    online, _, _ = machine("a")
    online.put("grade", OTHER, {"status": "failed"})  # lands in the remote at once
    moto.stop()
    offline, _, _ = machine("a")
    blob = offline.put_blob(b"a log made offline")
    offline.put("grade", KEY, {"status": "resolved", "log": blob})
    moto.start()  # back, and empty
    later, lines, _ = machine("a")
    assert not later.has("grade", "ef" * 32)  # a run looks up its first key: the remote answers
    assert later.remote is not None and later.remote.pending is not None
    assert later.remote.pending.items() == []
    assert any("uploaded 1 record(s)" in line for line in lines)
    fresh, _, _ = machine("b")  # another machine, empty store: reads the offline run's record
    record = fresh.get("grade", KEY)
    assert record is not None and fresh.get_blob(record["log"]) == b"a log made offline"


def test_opening_run_uploads_pending_even_when_nothing_is_looked_up(
    moto: Moto, machine: Callable[..., Any]
) -> None:
    offline, _, _ = machine("a")
    offline.put("grade", KEY, {"status": "resolved"})
    moto.start()
    rerun, _, _ = machine("a")
    assert rerun.flush_pending() == (1, 0)  # what the pipeline does when it opens the store
    assert rerun.flush_pending() == (0, 0)
    assert machine("b")[0].has("grade", KEY)


def test_push_command_uploads_pending_and_fails_while_unreachable(
    moto: Moto, machine: Callable[..., Any], tmp_path: Path
) -> None:
    store, _, _ = machine("a")
    store.put("grade", KEY, {"status": "resolved"})
    env = {**os.environ, "EVAL_STORE": str(tmp_path / "a"), "EVAL_REMOTE": f"s3://{BUCKET}/team",
           "EVAL_REMOTE_ENDPOINT": moto.endpoint, "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    env.pop("EVAL_REMOTE_MODE", None)

    def push(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "evaluator", "remote", "push", *extra],
                              env=env, capture_output=True, text=True, timeout=120)

    down = push()
    assert down.returncode == 1 and "1 still pending" in down.stdout, down.stdout + down.stderr
    Store(tmp_path / "a", None).put("grade", OTHER, {"status": "failed"})  # no remote then
    moto.start()
    up = push("--all")  # the pending one, and every local record the remote lacks
    assert up.returncode == 0 and "uploaded 2 record(s)" in up.stdout, up.stdout + up.stderr
    fresh, _, _ = machine("b")
    assert fresh.has("grade", KEY) and fresh.has("grade", OTHER)
