"""The default disk mode on this machine's overlay2 engine: a read-only root for every user, and a
workdir that is an overlay on the image's own layers (deletions, replaced folders and later
edits as the image has them), cleaned up with its container."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

import docker
import pytest

from evaluator.sandbox import DockerSandboxes, SandboxLimits
from evaluator.sandbox._labels import owner_label
from evaluator.sandbox._removal import drain
from evaluator.sandbox.docker._disk import disk_mode
from tests.backends import exists, rootless
from tests.helpers import unavailable

pytestmark = pytest.mark.docker

# Each RUN is a layer: the workdir is edited, emptied of a file and has a folder replaced above
# the layer that made it, so the overlay must read the layers as the engine does.
_LAYERS = """FROM {base}
USER root
RUN mkdir -p /testbed/gone /testbed/keep /srv/real && echo v1 > /testbed/file \\
 && echo a > /testbed/gone/a && echo old > /testbed/keep/old && ln -s /srv/real /linked \\
 && echo in-link > /srv/real/f && chown -R 1000:1000 /testbed /srv/real
RUN echo v2 > /testbed/file && rm /testbed/gone/a && rm -rf /testbed/keep \\
 && mkdir /testbed/keep && echo new > /testbed/keep/new && chown -R 1000:1000 /testbed
USER 1000:1000
"""


@pytest.fixture(scope="module")
def layered(base_image: str, docker_client: docker.DockerClient) -> str:
    with tempfile.TemporaryDirectory() as ctx:
        (Path(ctx) / "Dockerfile").write_text(_LAYERS.format(base=base_image))
        out = subprocess.run(["docker", "build", "-q", "--network", "none", ctx], check=True,
                             capture_output=True, text=True,
                             env={**os.environ, "DOCKER_BUILDKIT": "0"})
    return out.stdout.strip()


def test_this_engine_gets_overlay_workdirs(backend_sandboxes: DockerSandboxes,
                                           base_image: str) -> None:
    if os.environ.get("EVAL_SANDBOX_DISK"):
        unavailable("EVAL_SANDBOX_DISK forces a disk mode; unset it to test the default one")
    with backend_sandboxes.open(base_image, SandboxLimits(), purpose="test"):
        # A rootless service's image files are a chowned copy: no overlay on them (podman.md).
        expected = "watch" if rootless(backend_sandboxes) else "overlay"
        assert backend_sandboxes.backend().disk == expected


def test_root_is_read_only_even_for_root(backend_sandboxes: DockerSandboxes,
                                         base_image: str) -> None:
    with backend_sandboxes.open(base_image, SandboxLimits(), user="root", purpose="test") as sb:
        out = sb.exec("touch /etc/x /usr/x /x; echo ok > /testbed/ok && cat /testbed/ok; "
                      "echo t > /tmp/t && cat /tmp/t").output
        others = sb.exec("touch /etc/y /usr/y 2>&1", user="1000:1000").output
    assert out.endswith("ok\nt\n"), out
    if rootless(backend_sandboxes):
        # `watch` leaves the root writable to whoever owns its files (as `engine` does, the
        # cap counting it): root's image files are root's alone, never the sandbox user's.
        assert others.count("Permission denied") == 2, others
        return
    assert out.count("Read-only file system") == 3, out


def test_workdir_reads_the_layers_as_the_engine_does(backend_sandboxes: DockerSandboxes,
                                                     layered: str) -> None:
    with backend_sandboxes.open(layered, SandboxLimits(), purpose="test") as sb:
        out = sb.exec("cat file; ls gone | wc -l; ls keep; stat -c '%u %a' .; "
                      "echo edit >> file && cat file | tail -1").output
    assert out == "v2\n0\nnew\n1000 755\nedit\n", out


def test_a_workdir_behind_a_symlink_is_copied_under_a_read_only_root(
    backend_sandboxes: DockerSandboxes, layered: str
) -> None:
    with backend_sandboxes.open(layered, SandboxLimits(), workdir="/linked", purpose="test") as sb:
        out = sb.exec("cat f; echo w > g && cat g; touch /etc/x").output
    refused = "Permission denied" if rootless(backend_sandboxes) else "Read-only file system"
    assert out.startswith("in-link\nw\n") and refused in out, out


def test_volumes_go_with_their_sandbox(backend_sandboxes: DockerSandboxes, layered: str) -> None:
    sandboxes = backend_sandboxes
    if sandboxes.name == "daemonless":
        with sandboxes.open(layered, SandboxLimits(), purpose="test") as sb:
            sb.exec("echo x > /testbed/x")
            assert exists(sandboxes, sb.container_id)  # its folders: no volume
        assert drain() and not exists(sandboxes, sb.container_id)
        return
    docker_client = sandboxes.client
    if disk_mode(docker_client, sandboxes.engine.image(layered)[0]) != "overlay":
        unavailable("this engine gives no overlay workdirs (see the start-up line); they need "
                    "an overlay2 engine on this machine and a harness that is root")
    mine = {"label": f"evaluator.owner={owner_label()}"}
    before = {v["Name"] for v in docker_client.api.volumes(filters=mine)["Volumes"] or []}
    with sandboxes.open(layered, SandboxLimits(), purpose="test") as sb:
        sb.exec("echo x > /testbed/x")
        during = {v["Name"] for v in docker_client.api.volumes(filters=mine)["Volumes"] or []}
    # The overlay and its upper folder (podman: and the home's tmpfs, see `podman`; rootless:
    # none, its tmpfs mounts are chowned at start).
    made = 0 if rootless(sandboxes) else 3 if sandboxes.name == "podman" else 2
    assert len(during - before) == made
    assert drain()
    after = {v["Name"] for v in docker_client.api.volumes(filters=mine)["Volumes"] or []}
    assert not (after & (during - before))


def test_leftover_cleanup_takes_a_dead_owners_volumes(
    sandboxes: DockerSandboxes, docker_client: docker.DockerClient
) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    labels = {"evaluator.managed": "1", "evaluator.deadline": str(int(time.time()) + 3600),
              "evaluator.owner": owner_label().rsplit("/", 1)[0] + f"/{dead.pid}"}
    for name in ("evaluator-leftover-test", "evaluator-leftover-test-up"):
        docker_client.api.create_volume(name, labels=labels)
    sandboxes.cleanup_leftovers()
    names = {v["Name"] for v in docker_client.api.volumes()["Volumes"] or []}
    assert not names & {"evaluator-leftover-test", "evaluator-leftover-test-up"}


def test_unused_volumes_of_an_owner_nobody_can_judge_go_after_a_margin(
    sandboxes: DockerSandboxes, docker_client: docker.DockerClient, base_image: str
) -> None:
    # An orphan elsewhere (another PID namespace) stops by its lease and its container is then
    # removed as stopped; its volumes, unused from then on, must not wait for its deadline.
    def labels(age_s: int) -> dict[str, str]:
        now = int(time.time())
        return {"evaluator.managed": "1", "evaluator.created": str(now - age_s),
                "evaluator.deadline": str(now + 3600), "evaluator.owner": "elsewhere/1/42"}

    old, fresh, used = "evaluator-unused-old", "evaluator-unused-fresh", "evaluator-unused-used"
    for name, age in ((old, 120), (fresh, 0), (used, 120)):
        for volume in (name, f"{name}-up"):
            docker_client.api.create_volume(volume, labels=labels(age))
    holder = docker_client.containers.create(base_image, ["true"], volumes={used: {"bind": "/x"}})
    try:
        sandboxes.cleanup_leftovers()
        names = {v["Name"] for v in docker_client.api.volumes()["Volumes"] or []}
        assert not names & {old, f"{old}-up"}
        assert {fresh, f"{fresh}-up", used, f"{used}-up"} <= names
    finally:
        holder.remove(force=True)
        for name in (fresh, used):
            for volume in (name, f"{name}-up"):
                docker_client.api.remove_volume(volume)


def test_an_image_removed_and_loaded_again_still_opens(sandboxes: DockerSandboxes,
                                                       layered: str) -> None:
    with sandboxes.open(layered, SandboxLimits(), purpose="test") as sb:
        assert sb.exec("cat file").output == "v2\n"
    assert drain()
    saved = subprocess.run(["docker", "save", layered], check=True, capture_output=True).stdout
    subprocess.run(["docker", "rmi", layered], check=True, capture_output=True)
    subprocess.run(["docker", "load", "-q"], input=saved, check=True, capture_output=True)
    with sandboxes.open(layered, SandboxLimits(), purpose="test") as sb:
        assert sb.exec("cat file").output == "v2\n"  # new layer folders, not the cached ones
