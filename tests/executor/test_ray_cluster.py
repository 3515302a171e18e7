"""`doit eval` through a real Ray cluster of two Docker engines against the local executor."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from evaluator.store import Store
from tests.engines import Engine
from tests.executor.cluster import Cluster
from tests.executor.support import CountingProxy, fresh_store
from tests.pipeline.support import Project

pytestmark = pytest.mark.docker

# Fields that say when and how long, not what (timestamps, latencies, test runners' timings in
# outputs, a grade's random canary nonce): they differ between any two local runs too.
_TIMING = {"started", "finished", "created", "trajectory", "conversation", "cost", "output",
           "nonce", "duration_s"}


def _run(p: Project, store: Path, executor: str | None) -> Any:
    env = {**p.env, "EVAL_STORE": str(store)}
    if executor:
        env["EVAL_EXECUTOR"] = executor
    return Project(p.root, env).doit("-n", "2", "-P", "process", "eval:mini", timeout=900)


def _summary(out: str) -> str:
    # doit's own line for the summary target may land inside the summary's lines.
    out = out.replace(".  eval:mini\n", "")
    return out[out.index("eval of task set"):]


def _records(store: Path, kind: str) -> dict[str, dict[str, Any]]:
    return {r["key"]: {k: (v["harness_source"] if k == "provenance" else v)
                       for k, v in r.items() if k not in _TIMING}
            for r in Store(store, remote=None).iter_records(kind)}


@pytest.fixture(scope="module")
def local_run(gated: tuple[Project, CountingProxy]) -> tuple[str, Path]:
    project, _ = gated
    store = fresh_store(project, "local")
    out = _run(project, store, None)
    assert out.returncode == 0, out.stdout + out.stderr
    return _summary(out.stdout), store


def test_a_ray_run_with_a_worker_killed_mid_run_gives_the_local_summary_and_records(
        gated: tuple[Project, CountingProxy], local_run: tuple[str, Path], cluster: Cluster,
        second_engine: Engine) -> None:
    # One run covers three checks (each eval run costs CI about 20 s): the same summary and
    # records as local, a worker killed mid-run leaves the run complete and correct, and the
    # model bound holds across the cluster.
    project, proxy = gated
    summary, local = local_run
    store = fresh_store(project, "ray")
    proxy.reset()
    # A driver on a cluster node joins by the GCS address (test_placement checks Ray Client,
    # which costs this run some 10 s more: every call goes through the head's client server).
    env = {**project.env, "EVAL_STORE": str(store), "EVAL_EXECUTOR": f"ray:{cluster.gcs}"}
    proc = Project(project.root, env).popen("-n", "2", "-P", "process", "eval:mini")
    victim = next(n for n in cluster.nodes if n.docker_host == second_engine.host)
    before = set(second_engine.docker("ps", "-aq").split())
    deadline = time.monotonic() + 300
    while (not set(second_engine.docker("ps", "-q").split()) - before
           and time.monotonic() < deadline and proc.poll() is None):
        time.sleep(0.2)
    if proc.poll() is not None or time.monotonic() >= deadline:
        proc.kill()
        pytest.fail("no sandbox ever ran on the second engine:\n" + proc.communicate()[0])
    victim.kill(signal.SIGKILL)
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    assert _summary(out) == summary
    for kind in ("attempt", "grade", "result"):
        assert _records(store, kind) == _records(local, kind), kind
    # model_requests: 1 holds for the whole cluster, though two nodes ran attempts at once.
    assert proxy.total > 4 and proxy.peak == 1
    s = Store(store, remote=None)
    lost = [e for kind in ("attempt", "grade") for r in s.iter_records(kind)
            for e in s.errors(kind, r["key"]) if e["cause"] == "WorkLost"]
    assert lost and "handed to another node" in out
    # Written once each: one file per key, and the lost ones were never stored half.
    files = [p for p in (store / "records" / "attempt").rglob("*.json")]
    assert len(files) == 4 and len(list(s.iter_records("result"))) == 4
