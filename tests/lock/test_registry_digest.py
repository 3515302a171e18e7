"""Digest pinning against a real registry (Debian's docker-registry on loopback)."""

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from evaluator.lock import DockerPinResolver
from evaluator.sandbox import SandboxLimits

pytestmark = pytest.mark.docker


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("docker-registry")
    if binary is None:
        pytest.fail("docker-registry is missing: apt-get install docker-registry (.ci/docker-up does)")
    root, port = Path(tmp_path_factory.mktemp("registry")), _free_port()
    (root / "config.yml").write_text(
        f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {root / 'data'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n")
    proc = subprocess.Popen([binary, "serve", str(root / "config.yml")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/v2/", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait()


def test_tag_pushed_to_a_registry_locks_to_its_repo_digest(registry, docker_client, base_image,
                                                          sandboxes) -> None:
    repo = f"{registry}/evaluator-test/pinned"
    docker_client.images.get(base_image).tag(repo, "1")
    docker_client.images.push(repo, "1")
    pinned = DockerPinResolver(docker_client).image(f"{repo}:1")
    assert pinned.startswith(f"{repo}@sha256:") and len(pinned.split("@sha256:")[1]) == 64
    with sandboxes.open(pinned, SandboxLimits(), workdir="/tmp/w") as sb:
        assert sb.exec("python3 -c 'print(6*7)'").output.strip() == "42"
