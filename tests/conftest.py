"""Fixtures shared by every test package: a real Docker engine, the base image, sandboxes.

Docker tests use the real engine, never mocks: the point is that the isolation holds. Without an
engine they skip on a workstation but fail in CI, where a skip would hide a broken setup.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import docker
import pytest

from evaluator.errors import EvalError
from evaluator.images import BASE_TAG, ensure_base_image
from evaluator.sandbox import DockerSandboxes
from evaluator.sandbox import docker_client as connect
from tests.helpers import unavailable


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "docker: needs a running Docker engine (real containers)")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`, with every file of tests/executor on one worker: they share one Ray
    cluster and one second engine, which a second worker would start again."""
    from xdist.scheduler import LoadFileScheduling

    class _Scheduling(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            scope: str = super()._split_scope(nodeid)
            return "tests/executor" if scope.startswith("tests/executor/") else scope

    return _Scheduling(config, log)


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    try:
        client = connect()
    except EvalError as e:
        unavailable(f"Docker is unreachable: {e}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def base_image(docker_client: docker.DockerClient) -> str:
    """The harness's base image id; built once per machine (about 2 minutes), then reused."""
    try:
        return ensure_base_image(docker_client, BASE_TAG)
    except EvalError as e:
        unavailable(f"cannot build the base image {BASE_TAG}: {e}")


@pytest.fixture(scope="session")
def sandboxes(docker_client: docker.DockerClient) -> DockerSandboxes:
    return DockerSandboxes(docker_client)
