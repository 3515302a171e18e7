"""Files in and out, and containers that never outlive their owner."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import docker
import docker.errors
import pytest

from evaluator.errors import BadInputError
from evaluator.sandbox import DockerSandboxes, Sandbox, SandboxLimits
from evaluator.sandbox._labels import owner_label
from evaluator.sandbox._removal import drain

pytestmark = pytest.mark.docker


def _exists(client: docker.DockerClient, container_id: str) -> bool:
    try:
        client.containers.get(container_id)
    except docker.errors.NotFound:
        return False
    return True


def test_put_files_then_read(sandboxes: DockerSandboxes, base_image: str) -> None:
    with sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        sb.put_files({"/testbed/pkg/a.py": b"x = 1\n", "/tmp/run.sh": b"echo ran\n"}, mode=0o755)
        assert sb.read_file("/testbed/pkg/a.py") == b"x = 1\n"
        assert sb.read_file("/testbed/pkg/a.py", max_bytes=3) == b"x ="
        assert sb.exec("/tmp/run.sh; stat -c '%u:%g %a' /testbed/pkg/a.py").output == (
            "ran\n1000:1000 755\n"
        )
        with pytest.raises(FileNotFoundError):
            sb.read_file("/testbed/missing.txt")


def test_close_removes_container(
    sandboxes: DockerSandboxes, base_image: str, docker_client: docker.DockerClient
) -> None:
    sb = sandboxes.open(base_image, SandboxLimits(), purpose="test")
    assert isinstance(sb, Sandbox)
    assert _exists(docker_client, sb.container_id)
    sb.close()
    sb.close()
    assert docker_client.containers.get(sb.container_id).status != "running"
    assert drain()
    assert not _exists(docker_client, sb.container_id)


def test_missing_image_is_bad_input(sandboxes: DockerSandboxes) -> None:
    with pytest.raises(BadInputError, match="doit lock"):
        sandboxes.open("sha256:" + "0" * 64, SandboxLimits())


def test_cleanup_leftovers_removes_dead_owner(
    sandboxes: DockerSandboxes, base_image: str, docker_client: docker.DockerClient
) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    labels = {
        "evaluator.managed": "1",
        "evaluator.owner": owner_label().rsplit("/", 1)[0] + f"/{dead.pid}",
        "evaluator.deadline": str(int(time.time()) + 3600),
    }
    leftover = docker_client.containers.create(base_image, ["true"], labels=labels)
    assert sandboxes.cleanup_leftovers() >= 1
    assert not _exists(docker_client, leftover.id)


def test_sigterm_removes_open_sandboxes(
    base_image: str, docker_client: docker.DockerClient
) -> None:
    script = (
        "import sys, time\n"
        "from evaluator.sandbox import DockerSandboxes, Sandbox, SandboxLimits\n"
        "sb = DockerSandboxes().open(sys.argv[1], SandboxLimits(), purpose='test')\n"
        "print(sb.container_id, flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, base_image], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    container_id = child.stdout.readline().strip()
    os.kill(child.pid, signal.SIGTERM)
    assert child.wait(timeout=30) == -signal.SIGTERM
    assert container_id and not _exists(docker_client, container_id)
