"""A real cluster for the executor tests: a Ray head and two worker nodes, each worker with its
own Docker engine (the machine's default one, and a second dockerd from tests.engines), one
sandbox slot each. Node a also has podman's service (.ci/podman-up) and the daemonless backend
(bubblewrap, its store at the machine's EVAL_DAEMONLESS_ROOT) and says so (`sandbox-docker`,
`sandbox-podman`, `sandbox-daemonless`); node b has Docker alone, named as before there were
backends (`sandbox`). Started once for the package and stopped after its last test (idle, its
nodes still cost a core a few percent); with CI=true a missing Ray or a cluster that does
not start fails the tests instead of skipping them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.engines import Engine
from tests.executor.cluster import Cluster, start_cluster
from tests.executor.support import CountingProxy
from tests.helpers import unavailable
from tests.pipeline.support import Project, new_project


@pytest.fixture(scope="package")
def cluster(second_engine: Engine, base_image: str) -> Iterator[Cluster]:
    try:
        import ray  # noqa: F401
    except ImportError as e:
        unavailable(f"ray is not installed ({e}); install requirements-dev.lock")
    try:
        c = start_cluster()
    except (RuntimeError, OSError) as e:
        unavailable(f"cannot start a Ray head: {e}")
    try:
        c.start_workers(("a", 1, None, ("docker", "podman", "daemonless")), ("b", 1, second_engine.host))
    except (RuntimeError, OSError) as e:
        c.stop()
        unavailable(f"cannot start Ray worker nodes: {e}")
    yield c
    c.stop()


@pytest.fixture(scope="package")
def gated(tmp_path_factory: pytest.TempPathFactory,
          _gated_template: Path) -> Iterator[tuple[Project, CountingProxy]]:
    """A project (2 tasks, 2 simulated agents) locked and gold-gated locally (the run's gated
    template's lock and store), and a counting proxy in front of a simulated endpoint (0.3 s a
    reply) that every eval run of it uses."""
    from evaluator.simulated import start_simulated_endpoint

    root = tmp_path_factory.mktemp("cluster-project")
    project = new_project(root, store="gated")
    env = project.env
    shutil.copytree(_gated_template / "lock", root / "lock")
    shutil.copytree(_gated_template / "store", root / "gated")
    project.eval_config(concurrency={"sandboxes": 2, "model_requests": 1})
    sim_config = root / "sim.yaml"
    sim_config.write_text(yaml.safe_dump({"faults": {"latency_ms": 300}}))
    endpoint = start_simulated_endpoint(root / "tasks", sim_config)
    proxy = CountingProxy(endpoint.base_url)
    env["EVAL_SIMULATED_URL"] = proxy.url
    yield project, proxy
    proxy.close()
    endpoint.close()


