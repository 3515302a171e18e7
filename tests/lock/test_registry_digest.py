"""Digest pinning against a real registry (Debian's docker-registry on loopback)."""


import pytest

from evaluator.lock import DockerPinResolver
from evaluator.sandbox import SandboxLimits

pytestmark = pytest.mark.docker


def test_tag_pushed_to_a_registry_locks_to_its_repo_digest(registry, docker_client, base_image,
                                                          sandboxes) -> None:
    repo = f"{registry}/evaluator-test/pinned"
    docker_client.images.get(base_image).tag(repo, "1")
    docker_client.images.push(repo, "1")
    pinned = DockerPinResolver(docker_client).image(f"{repo}:1")
    assert pinned.startswith(f"{repo}@sha256:") and len(pinned.split("@sha256:")[1]) == 64
    with sandboxes.open(pinned, SandboxLimits(), workdir="/tmp/w") as sb:
        assert sb.exec("python3 -c 'print(6*7)'").output.strip() == "42"
