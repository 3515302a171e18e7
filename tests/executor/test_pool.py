"""The warm pool on the real engine and on podman (rootful and rootless): only for announced work,
used once, full deadline, idle sandboxes closed."""

import time

import pytest

from evaluator.executor import WarmPool
from evaluator.sandbox import (
    DockerSandboxes,
    PodmanSandboxes,
    Sandboxes,
    SandboxLimits,
    copy_image,
)

pytestmark = pytest.mark.docker
LIMITS = SandboxLimits(sandbox_timeout_s=60)


def _wait(cond, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.1)
    return bool(cond())


def _announce(pool: WarmPool, ticket: str, image: str) -> None:
    pool.expect(ticket, image, LIMITS, user="1000:1000", workdir="/tmp/w", purpose="attempt")


@pytest.fixture(params=["docker", "podman", "podman-rootless"])
def pooled(request: pytest.FixtureRequest, docker_client, base_image: str) -> Sandboxes:
    """Docker's sandboxes, then podman's service's, rootful and rootless (the base image
    copied there first)."""
    if request.param == "docker":
        return DockerSandboxes(docker_client)
    fixture = "rootless_podman" if request.param == "podman-rootless" else "podman_sandboxes"
    podman: PodmanSandboxes = request.getfixturevalue(fixture)
    copy_image(base_image, docker_client, podman.client)
    return podman


def test_announced_work_gets_a_warm_sandbox_with_a_full_deadline(pooled: Sandboxes,
                                                                 base_image: str) -> None:
    pool = WarmPool(size=2, max_idle_s=20, sandboxes=pooled)
    try:
        time.sleep(0.5)
        assert pool.ready() == 0  # nothing queued, nothing warm
        _announce(pool, "t1", base_image)
        assert _wait(lambda: pool.ready() == 1)
        time.sleep(3)
        pool.bind("t1")
        opened = time.monotonic()
        with pool.open(base_image, LIMITS, user="1000:1000", workdir="/tmp/w",
                       purpose="attempt") as sb:
            assert sb.exec("echo hi").output.strip() == "hi"
            # Counted from its use: counted from its warm start it would be 3 s shorter.
            used = time.monotonic() - opened
            assert sb.limits == LIMITS and sb._remaining() > 60 - used - 1
        assert pool.stats["warm"] == 1 and pool.ready() == 0
        assert not _wait(lambda: pool.ready() > 0, timeout=2)  # used once: t1 is not refilled
    finally:
        pool.close()


def test_idle_or_unneeded_warm_sandboxes_are_closed(docker_client, base_image) -> None:
    pool = WarmPool(size=1, max_idle_s=2, sandboxes=DockerSandboxes(docker_client))
    try:
        _announce(pool, "t1", base_image)
        _announce(pool, "t2", base_image)
        assert _wait(lambda: pool.ready() == 1)  # bounded by size, not by queued work
        pool.forget("t1")
        pool.forget("t2")
        assert _wait(lambda: pool.ready() == 0, timeout=10)
        assert pool.stats["dropped"] >= 1
    finally:
        pool.close()
