"""A node fetching images on the real cluster: each image once at a time, at most
EVAL_RAY_PULLS at once, loaded from a node that holds it (here one that takes a second to send
each, so the fetches overlap)."""

from __future__ import annotations

import io
import tarfile
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.engines import Engine
from tests.executor.cluster import Cluster

pytestmark = pytest.mark.docker


class SlowHolder:
    """A node's image export that takes a second (a big image over a slow link)."""

    def export_image(self, image: str) -> bytes:
        from evaluator.sandbox import docker_client

        time.sleep(1)
        return b"".join(docker_client().images.get(image).save(named=True))


@pytest.fixture
def tiny_images(docker_client: Any, second_engine: Engine) -> Iterator[list[str]]:
    """Four one-file images on the default engine only."""
    names = []
    for i in range(4):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            data = f"{uuid.uuid4()}\n".encode()
            info = tarfile.TarInfo("f")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        name = f"evaluator-test/tiny-{uuid.uuid4().hex[:8]}-{i}:1"
        docker_client.api.import_image_from_data(buf.getvalue(), repository=name.split(":")[0],
                                                 tag="1")
        names.append(name)
    yield names
    for name in names:
        docker_client.images.remove(name, force=True)
        second_engine.docker("rmi", "-f", name, check=False)


def test_a_node_fetches_each_image_once_and_at_most_pulls_at_once(
        cluster: Cluster, second_engine: Engine, tiny_images: list[str]) -> None:
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from evaluator.executor._actors import _node_class

    cluster.alive()  # this process joins as a driver
    holder: Any = ray.remote(SlowHolder).options(
        max_concurrency=8, num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(
            cluster.node("a").node_id, soft=False)).remote()
    # A node agent of its own on B (the second engine), six threads, two fetches at once.
    agent = _node_class().options(
        max_concurrency=6, num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(
            cluster.node("b").node_id, soft=False)).remote(6, 0, 30.0, 2)
    try:
        first, *others = tiny_images
        asks = [first, first, first, *others]  # one image asked three times at once
        t0 = time.monotonic()
        fetched = ray.get([agent.fetch.remote(i, [holder]) for i in asks], timeout=120)
        took = time.monotonic() - t0
        described = ray.get(agent.describe.remote(tiny_images))
        assert fetched.count(True) == 4 and described["pulled"] == 4  # each image once
        assert all(described["holds"]) and all(second_engine.has(i) for i in tiny_images)
        assert described["fetch_peak"] == 2 and took >= 2  # four of a second each, two at once
    finally:
        ray.kill(agent)
        ray.kill(holder)

