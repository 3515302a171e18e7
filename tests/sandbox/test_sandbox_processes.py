"""No process outlives its exec, and no sandbox outlives its deadline or is taken from a live
owner in another PID namespace."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import docker
import docker.errors
import pytest

from evaluator.images import BASE_TAG
from evaluator.sandbox import DockerSandboxes, SandboxLimits

pytestmark = pytest.mark.docker

_OPEN = (
    "import sys, time\n"
    "from evaluator.sandbox import DockerSandboxes, SandboxLimits\n"
    "sb = DockerSandboxes().open(sys.argv[1], SandboxLimits(sandbox_timeout_s=float(sys.argv[2])),"
    " purpose='test')\n"
    "print(sb.container_id, flush=True)\n"
    "time.sleep(120)\n"
)


def _commands(sb) -> str:
    return sb.exec("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done").output


def test_setsid_daemon_does_not_survive_its_exec(sandboxes: DockerSandboxes, base_image: str) -> None:
    with sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        sb.exec("setsid sh -c 'sleep 1; echo late > /tmp/late' >/dev/null 2>&1 < /dev/null &")
        assert "echo late" not in _commands(sb)
        time.sleep(2)
        assert sb.exec("cat /tmp/late").exit_code != 0


def test_root_sandbox_user_cannot_end_pid1(sandboxes: DockerSandboxes, base_image: str) -> None:
    with sandboxes.open(base_image, SandboxLimits(), user="root", purpose="test") as sb:
        sb.exec("kill -KILL -1; kill -KILL 1; setsid sleep 60 &")
        assert sb.exec("echo alive").output == "alive\n"


def _opened_by_child(argv: list[str], timeout_s: float) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    child = subprocess.Popen([*argv, sys.executable, "-c", _OPEN, BASE_TAG,
                              str(timeout_s)], stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    return child, child.stdout.readline().strip()


def test_orphan_stops_at_its_deadline(base_image: str, docker_client: docker.DockerClient) -> None:
    # Its harness in a PID namespace of its own, so that another process's leftover cleanup
    # (tests run beside this one) cannot judge it dead and remove the container before we look.
    assert shutil.which("unshare"), "util-linux's unshare is needed"
    child, cid = _opened_by_child(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"], 3)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    for _ in range(60):
        if docker_client.containers.get(cid).status == "exited":
            break
        time.sleep(0.5)
    assert docker_client.containers.get(cid).status == "exited"
    docker_client.containers.get(cid).remove(force=True)


def test_live_owner_in_another_pid_namespace_keeps_its_sandbox(
    sandboxes: DockerSandboxes, base_image: str, docker_client: docker.DockerClient
) -> None:
    assert shutil.which("unshare"), "util-linux's unshare is needed"
    child, cid = _opened_by_child(["unshare", "--pid", "--fork", "--mount-proc"], 600)
    try:
        assert cid, "the child harness in its own PID namespace opened no sandbox"
        sandboxes.cleanup_leftovers()
        assert docker_client.containers.get(cid).status == "running"
    finally:
        child.kill()
        child.wait()
        try:
            docker_client.containers.get(cid).remove(force=True)
        except docker.errors.NotFound:
            pass
