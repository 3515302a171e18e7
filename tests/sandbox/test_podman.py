"""Podman as a backend: images keep their ids, a sandbox looks to its commands as on Docker;
rootless podman holds a sandbox's limits as rlimits where no cgroup does, and a rootless service
that cannot is refused."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import docker
import pytest

from evaluator.errors import BadInputError
from evaluator.grading import DockerGrader, GradeSpec
from evaluator.images import build_task_image
from evaluator.sandbox import DockerSandboxes, PodmanSandboxes, SandboxLimits, copy_image
from evaluator.sandbox.podman import rootless_limits
from tests.helpers import GOLD

pytestmark = pytest.mark.docker

# What a command can tell about its sandbox: user, variables, limits, where it may write.
_LOOK = ("id; env | sort; ulimit -f; ulimit -n; hostname; "
         "for d in / /etc /run /var/tmp /tmp $HOME /testbed /dev/shm; do "
         "touch $d/.w 2>/dev/null && echo $d writable || echo $d not; done")


def test_a_sandbox_looks_the_same_on_both(sandboxes: DockerSandboxes,
                                          podman_sandboxes: PodmanSandboxes,
                                          base_image: str) -> None:
    seen = []
    for backend in (sandboxes, podman_sandboxes):
        with backend.open(base_image, SandboxLimits(disk_mb=64), purpose="test") as sb:
            seen.append(sb.exec(_LOOK).output)
    assert seen[0] == seen[1]
    assert "container=" not in seen[1] and "/run writable" not in seen[1]


def test_an_image_copied_from_docker_keeps_its_id_and_tags(
        docker_client: docker.DockerClient, podman_sandboxes: PodmanSandboxes,
        base_image: str) -> None:
    assert copy_image(base_image, docker_client, podman_sandboxes.client) == base_image
    found = podman_sandboxes.client.images.get(base_image)
    assert found.id == base_image and found.attrs["RootFS"]["Layers"] == \
        docker_client.images.get(base_image).attrs["RootFS"]["Layers"]


def test_a_task_image_built_on_podman_has_docker_s_id(
        docker_client: docker.DockerClient, podman_sandboxes: PodmanSandboxes,
        base_image: str, tmp_path: Path) -> None:
    # The harness writes the image's archive itself, so a lock made on a podman-only host pins
    # what one made on Docker pins: the same keys.
    (tmp_path / "pkg.py").write_text("def answer():\n    return 42\n")
    copy_image(base_image, docker_client, podman_sandboxes.client)
    tag = f"evaluator-test/podman-same-id:{os.getpid()}"
    ids = [build_task_image(c, base_image=base_image, tag=tag, repo_dir=tmp_path)
           for c in (docker_client, podman_sandboxes.client)]
    try:
        assert ids[0] == ids[1]
        with podman_sandboxes.open(ids[1], SandboxLimits(), purpose="test") as sb:
            assert sb.exec("python3 -c 'import pkg; print(pkg.answer())'").output == "42\n"
    finally:
        for c in (docker_client, podman_sandboxes.client):
            c.images.remove(tag)


# Forks until refused, holding its children for a while; prints how many it got.
_FORKS = ("python3 -c \"import os, time\nn = 0\nwhile n < 200:\n    try:\n        pid = os.fork()\n"
          "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(3)\n"
          "        os._exit(0)\n    n += 1\nprint('forked', n)\"")


def test_rootless_podman_contains_a_fork_bomb_memory_disk_and_time(
        rootless_podman: PodmanSandboxes, task_image: str) -> None:
    # The grade's image: one copy into the rootless service's storage serves both tests.
    limits = SandboxLimits(memory_mb=128, pids=40, disk_mb=32, exec_timeout_s=20)
    with rootless_podman.open(task_image, limits, purpose="test") as sb, \
            rootless_podman.open(task_image, limits, purpose="test") as other:
        # `wait` returned at once when the first pipeline ended, before the bomb met its cap:
        # the exec stays while the bomb grows (a rootless exec also starts slowly).
        bomb = sb.exec("b() { b | b & }; b; sleep 3", timeout_s=10)
        big = sb.exec("python3 -c \"b = b'x' * (400 << 20); print('allocated')\"")
        slow = sb.exec("sleep 60", timeout_s=2)
        # Each sandbox's processes count against its own cap only: two at once get as many.
        held = threading.Thread(target=lambda: forks.append(other.exec(_FORKS).output))
        forks: list[str] = []
        held.start()
        time.sleep(1)
        mine = sb.exec(_FORKS).output
        held.join()
        after = sb.exec("ls -d /proc/[0-9]* | wc -l; ulimit -Ha; ls -ldn $HOME")
        full = other.exec("for i in $(seq 8); do head -c 8M /dev/zero > f$i; done; sleep 5; echo on")
    detail = rootless_podman.backend().detail
    assert detail.startswith("rootless,") and ("limits: rlimits (rootless on cgroup v1)" in detail
                                               or "cgroup v2" in detail), detail
    assert "Cannot fork" in bomb.output and bomb.duration_s < 30, bomb  # refused, and over
    assert "allocated" not in big.output and "MemoryError" in big.output
    assert slow.exit_code == 137 and slow.timed_out and slow.duration_s < 45  # not its 60 s
    for got in (mine, *forks):
        assert 30 <= int(got.split()[-1]) < 40, (mine, forks)
    assert int(after.output.split()[0]) <= 10 and "process              40" in after.output
    assert "1000 1000" in after.output.splitlines()[-1]  # its home is its own
    assert "on" not in full.output.split() and full.exit_code != 0  # killed past its disk_mb


def test_rootless_podman_grades(rootless_podman: PodmanSandboxes, spec: GradeSpec,
                                hidden: dict[str, bytes]) -> None:
    out = DockerGrader(rootless_podman).grade(spec, GOLD.encode(), hidden)
    assert out.resolved, out.detail
    assert out.backend["name"] == "podman"


def test_rootless_podman_sharing_a_user_namespace_is_refused(
        rootless_podman: PodmanSandboxes, task_image: str) -> None:
    # A service without `userns = "auto"` makes its containers so: every container's uid 1000
    # would be one user to RLIMIT_NPROC, whatever sandbox it is in.
    shared = rootless_podman.client.containers.create(task_image, command=["true"],
                                                      userns_mode="host")
    if "limits: rlimits" not in rootless_podman.backend().detail:
        rootless_podman.engine.check_created(shared)  # a cgroup counts each sandbox's processes
        shared.remove(force=True)
        return
    with pytest.raises(BadInputError, match="no user namespace of their own.*userns"):
        rootless_podman.engine.check_created(shared)
    with pytest.raises(docker.errors.NotFound):
        shared.reload()  # removed


def test_rootless_podman_holds_limits_by_cgroup_only_with_v2_controllers() -> None:
    assert rootless_limits(False, "1", []) == ""  # rootful: the cgroup holds them on v1 too
    assert rootless_limits(True, "1", ["cpu", "memory", "pids"]) == "rootless on cgroup v1"
    assert "without the pids controller" in rootless_limits(True, "2", ["cpu", "memory", "io"])
    assert rootless_limits(True, "2", ["cpuset", "cpu", "io", "memory", "pids"]) == ""
