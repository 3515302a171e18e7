"""A real cluster for the executor tests: a Ray head and two worker nodes, each worker with its
own Docker engine (the machine's default one, and a second dockerd from tests.engines), one
sandbox slot each. Started once per session; with CI=true a missing Ray or a cluster that does
not start fails the tests instead of skipping them."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.engines import Engine, second_engine, unavailable  # noqa: F401 - a fixture
from tests.executor.cluster import Cluster, start_cluster
from tests.pipeline.conftest import Project, new_project


@pytest.fixture(scope="session")
def cluster(second_engine: Engine, base_image: str) -> Iterator[Cluster]:  # noqa: F811
    try:
        import ray  # noqa: F401
    except ImportError as e:
        unavailable(f"ray is not installed ({e}); install requirements-dev.lock")
    try:
        c = start_cluster()
    except (RuntimeError, OSError) as e:
        unavailable(f"cannot start a Ray head: {e}")
    try:
        c.start_workers(("a", 1, None), ("b", 1, second_engine.host))
    except (RuntimeError, OSError) as e:
        c.stop()
        unavailable(f"cannot start Ray worker nodes: {e}")
    yield c
    c.stop()


class CountingProxy:
    """An HTTP proxy in front of the model endpoint that counts requests in flight."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.now, self.peak, self.total = upstream.rstrip("/"), 0, 0, 0
        lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    proxy.now += 1
                    proxy.total += 1
                    proxy.peak = max(proxy.peak, proxy.now)
                try:
                    r = httpx.post(proxy.upstream + self.path.removeprefix("/v1"), content=body,
                                   headers={"Content-Type": "application/json"}, timeout=120)
                finally:
                    with lock:
                        proxy.now -= 1
                self.send_response(r.status_code)
                self.send_header("Content-Type", r.headers.get("content-type", "application/json"))
                self.send_header("Content-Length", str(len(r.content)))
                self.end_headers()
                self.wfile.write(r.content)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reset(self) -> None:
        self.now = self.peak = self.total = 0

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture(scope="session")
def gated(tmp_path_factory: pytest.TempPathFactory, docker_client: Any,
          base_image: str) -> Iterator[tuple[Project, CountingProxy]]:
    """A project (2 tasks, 2 simulated agents) locked and gold-gated locally, and a counting
    proxy in front of a simulated endpoint (0.3 s a reply) that every eval run of it uses."""
    from evaluator.simulated import start_simulated_endpoint

    root = tmp_path_factory.mktemp("cluster-project")
    project = new_project(root, store="gated")
    env = project.env
    assert project.doit("lock:mini").returncode == 0
    gold = project.doit("-n", "2", "-P", "process", "gold:mini")
    assert gold.returncode == 0, gold.stdout + gold.stderr
    project.eval_config(concurrency={"sandboxes": 2, "model_requests": 1})
    sim_config = root / "sim.yaml"
    sim_config.write_text(yaml.safe_dump({"faults": {"latency_ms": 300}}))
    endpoint = start_simulated_endpoint(root / "tasks", sim_config)
    proxy = CountingProxy(endpoint.base_url)
    env["EVAL_SIMULATED_URL"] = proxy.url
    yield project, proxy
    proxy.close()
    endpoint.close()


def fresh_store(project: Project, name: str) -> Path:
    """A copy of the gold-gated store, for one eval run of its own."""
    dest = project.root / name
    shutil.copytree(project.root / "gated", dest, ignore=shutil.ignore_patterns("locks"))
    return dest
