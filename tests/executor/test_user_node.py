"""A Ray node started by a user who is not root, as on a shared cluster: `evaluator userns -- ray
start` (the daemonless backend in the user's own namespace), beside that user's rootless podman
service. Work whose image only that node holds is placed there, runs there, and says so."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.executor._ray import RayExecutor
from evaluator.grading import RESOLVED, GradeOutcome, GradeSpec
from evaluator.images import build_task_image
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import PodmanSandboxes, copy_image
from tests.daemonless import as_user, rootless_user, user_argv
from tests.executor.cluster import Cluster, Node
from tests.helpers import GOLD, HIDDEN_FILES, REPO_FILES, write_files

pytestmark = pytest.mark.docker
_HIDDEN = {k: v.encode() for k, v in HIDDEN_FILES.items()}


@pytest.fixture(scope="module")
def only_there(docker_client: Any, base_image: str, spec: GradeSpec,
               tmp_path_factory: pytest.TempPathFactory) -> GradeSpec:
    """A task image no other node holds (the calc repository and one file more)."""
    repo = tmp_path_factory.mktemp("user-node-repo")
    write_files(repo, {**REPO_FILES, "NODE.md": "graded on the user's node\n"})
    image = build_task_image(docker_client, base_image=base_image,
                             tag="evaluator-test/user-node:1", repo_dir=repo)
    sha = DockerPinResolver(docker_client).commit(image, "/testbed", "HEAD")
    return dataclasses.replace(spec, image=image, base_commit=sha)


@pytest.fixture(scope="module")
def user_node(cluster: Cluster, only_there: GradeSpec, rootless_podman: PodmanSandboxes,
              rootless_podman_host: str, docker_client: Any,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    """The user's node: one daemonless slot (its store in the user's cache, the image loaded
    there from `docker save`'s archive) and one podman slot (the user's rootless service)."""
    user = rootless_user()
    home = tmp_path_factory.mktemp("user-node")
    env = {**cluster.env(), "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
           "EVAL_SANDBOX_BACKEND": "daemonless", "EVAL_PODMAN_HOST": rootless_podman_host}
    subprocess.run(["docker", "save", "-o", str(home / "image.tar"), only_there.image], check=True)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(home)], check=True)
    load = as_user([sys.executable, "-m", "evaluator", "images", "load", str(home / "image.tar")],
                   env=env, cwd=home)
    assert load.returncode == 0, load.stdout + load.stderr
    copy_image(only_there.image, docker_client, rootless_podman.client)

    def wrap(argv: list[str]) -> list[str]:
        return user_argv([sys.executable, "-m", "evaluator", "userns", "--", *argv], (home,))

    node = cluster.start_wrapped("user", ("daemonless", "podman"), env, wrap,
                                 (user.pw_uid, user.pw_gid))
    yield node
    cluster.remove(node)


def _gold_graded(cluster: Cluster, node: Node, spec: GradeSpec, backend: str) -> GradeOutcome:
    """The gold patch graded through the cluster on `backend`, with `node` among its agents;
    the outcome checked resolved."""
    executor = RayExecutor(cluster.gcs, backend=backend)
    assert node.node_id in executor.agents()
    out = executor.grader().grade(spec, GOLD.encode(), _HIDDEN)
    assert out.outcome == RESOLVED, out.detail
    return out


def test_daemonless_work_placed_on_the_user_s_node_runs_in_its_user_namespace(
        cluster: Cluster, user_node: Node, only_there: GradeSpec) -> None:
    out = _gold_graded(cluster, user_node, only_there, "daemonless")
    assert out.backend["name"] == "daemonless"
    assert "; user namespace (uids 0 -> " in out.backend["detail"], out.backend


def test_podman_work_placed_on_the_user_s_node_runs_on_its_rootless_service(
        cluster: Cluster, user_node: Node, only_there: GradeSpec) -> None:
    out = _gold_graded(cluster, user_node, only_there, "podman")
    assert out.backend["name"] == "podman" and out.backend["detail"].startswith("rootless"), (
        out.backend)


def test_every_process_of_the_user_s_node_is_the_user_s(user_node: Node) -> None:
    uid = rootless_user().pw_uid
    owners = {pid: Path(f"/proc/{pid}").stat().st_uid for pid in user_node.pids()}
    assert owners and set(owners.values()) == {uid}, owners
