"""Placement on the real cluster: a node holding the image first, then one with a free slot."""

import subprocess
import sys

import pytest

from evaluator.sandbox import SandboxLimits
from tests.engines import Engine
from tests.executor.cluster import Cluster

pytestmark = pytest.mark.docker


def test_work_prefers_the_holder_then_a_free_node(cluster: Cluster, second_engine: Engine,
                                                 base_image: str) -> None:
    import ray

    from evaluator.executor._ray import RayExecutor

    assert not second_engine.has(base_image)  # only the default engine holds it
    cluster.alive()  # this process joins as a driver
    ex = RayExecutor(cluster.gcs)
    placed = []
    try:
        for ticket in ("t-first", "t-second"):
            _, agent, holders, waits = ex.place(ticket, base_image, SandboxLimits(),
                                                "1000:1000", "/tmp", "attempt")
            assert not waits  # each found a free slot
            placed.append((ticket, agent, ray.get(agent.describe.remote([]))["engine"],
                           len(holders)))
        # One slot each: the holder takes the first, and its claim sends the second to the
        # other node (which would fetch the image from the holder, named in `holders`).
        assert placed[0][2] == "default" and placed[1][2] == second_engine.host
        assert placed[1][3] == 1
    finally:
        for ticket, agent, _, _ in placed:
            ray.get(agent.withdraw.remote(ticket))


def test_a_driver_anywhere_reaches_the_nodes_through_ray_client(cluster: Cluster) -> None:
    # EVAL_EXECUTOR=ray://HOST:PORT: a process that is not a node of the cluster.
    code = ("from evaluator.executor import executor_from_env as f; "
            "print(sorted(d['capacity'] for d in f(lambda *a: None).describe()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**cluster.env(), "EVAL_EXECUTOR": cluster.address}, timeout=120)
    assert out.returncode == 0 and out.stdout.split("\n")[-2] == "[1, 1]", out.stderr[-2000:]
