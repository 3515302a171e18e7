"""The gold gate and an eval on podman and on the daemonless backend (as root, and started by a
user who is not root), through the real `doit`: the same keys and outcomes as on Docker, and
each record says which backend ran it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.sandbox import copy_image
from evaluator.store import Store
from tests.daemonless import as_user, bring, rootless_user
from tests.pipeline.support import DOIT, Project, UserProject, executed, new_project

pytestmark = pytest.mark.docker


def _grades(root: Path) -> dict[str, tuple[str, str, dict[str, str]]]:
    """grade key -> (what was graded, outcome, each test's status)."""
    return {r["key"]: (r["subject"], r["outcome"], r["tests"])
            for r in Store(root / "store").iter_records("grade")}


def _backends(root: Path, kind: str) -> set[str]:
    return {(r.get("backend") or {}).get("name", "?") for r in Store(root / "store").iter_records(kind)}


@pytest.fixture(scope="module", params=["podman", "podman-rootless", "daemonless",
                                        "daemonless-as-a-user"])
def on_backend(request: pytest.FixtureRequest, _gated_template: Path,
               tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The gated project's set, locked as on Docker, gold-gated and evaluated on a backend."""
    backend, _, as_a_user = request.param.partition("-as-a-")
    root = tmp_path_factory.mktemp(request.param) / "project"
    shutil.copytree(_gated_template, root, symlinks=True)
    shutil.rmtree(root / "store")
    images = sorted({pin["image"]["pinned"] for pin in
                     json.loads((root / "lock" / "mini.lock").read_text())["tasks"].values()})
    if as_a_user:
        project: Project = _as_the_user(root, images)
    elif request.param == "podman-rootless":  # a rootless service: the images by id, copied
        backend, rootless = "podman", request.getfixturevalue("rootless_podman")
        for image in images:
            copy_image(image, request.getfixturevalue("docker_client"), rootless.client)
        project = new_project(root, files=False)
        project.env["EVAL_PODMAN_HOST"] = request.getfixturevalue("rootless_podman_host")
    else:
        sandboxes = request.getfixturevalue(f"{backend}_sandboxes")
        if backend == "daemonless":  # the lock's images by id, as a registry gives them
            for image in images:
                bring(sandboxes, image)
        project = new_project(root, files=False)
    project.env["EVAL_SANDBOX_BACKEND"] = backend
    gold = project.doit("-n", "2", "-P", "process", "gold:mini")
    assert gold.returncode == 0, gold.stdout + gold.stderr
    assert len(executed(gold.stdout, "grade:")) == 8
    project.eval_config(agents=["sim-a"])  # one agent's two attempts: the eval's path, halved
    out = project.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(executed(out.stdout, "attempt:")) == 2
    return project


def _as_the_user(root: Path, images: list[str]) -> UserProject:
    """The project owned by the rootless user, whose own harness loads the images from the
    archive `docker save` writes (as a cluster node without Docker gets them)."""
    user = rootless_user()
    archive = root / "images.tar"
    subprocess.run(["docker", "save", "-o", str(archive), *images], check=True)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(root)], check=True)
    base = new_project(root, files=False)
    env = {**base.env, "HOME": str(root), "XDG_CACHE_HOME": str(root / "cache"),
           "EVAL_SANDBOX_BACKEND": "daemonless"}
    load = as_user([*DOIT[:1], "-m", "evaluator", "images", "load", str(archive)], env=env,
                   cwd=root)
    assert load.returncode == 0, load.stdout + load.stderr
    archive.unlink()
    return UserProject(root, env)


def test_the_gold_gate_gives_docker_s_keys_and_outcomes(on_backend: Project,
                                                        _gated_template: Path) -> None:
    docker_gold = _grades(_gated_template)
    gold = {k: v for k, v in _grades(on_backend.root).items() if k in docker_gold}
    assert gold == docker_gold and len(docker_gold) == 8
    assert _backends(_gated_template, "grade") == {"docker"}


def test_attempts_and_grades_record_their_backend_and_a_docker_rerun_does_nothing(
        on_backend: Project) -> None:
    backend = on_backend.env["EVAL_SANDBOX_BACKEND"]
    assert _backends(on_backend.root, "grade") == {backend}
    assert _backends(on_backend.root, "attempt") == {backend}
    details = {(r.get("backend") or {}).get("detail", "")
               for r in Store(on_backend.root / "store").iter_records("grade")}
    in_userns = isinstance(on_backend, UserProject)
    assert all(("; user namespace (uids 0 -> " in d) == in_userns for d in details), details
    rootless = "/run/user/" in on_backend.env.get("EVAL_PODMAN_HOST", "")
    assert backend != "podman" or all(d.startswith("rootless") == rootless for d in details), details
    on_docker = Project(on_backend.root, {**on_backend.env, "EVAL_SANDBOX_BACKEND": "docker"})
    again = on_docker.doit("-n", "2", "-P", "process", "eval:mini")
    assert again.returncode == 0, again.stdout + again.stderr
    assert executed(again.stdout, "attempt:") == [] and executed(again.stdout, "evalgrade:") == []


def test_a_lock_made_on_podman_alone_pins_what_docker_pinned(
        _gated_template: Path, podman_sandboxes, docker_client, base_image: str,
        tmp_path: Path) -> None:
    # A host without a Docker daemon: images are built into podman, with the same ids.
    copy_image(base_image, docker_client, podman_sandboxes.client)
    root = tmp_path / "project"
    shutil.copytree(_gated_template / "tasks", root / "tasks")
    project = new_project(root, files=False)
    project.env.update(EVAL_SANDBOX_BACKEND="podman", DOCKER_HOST="unix:///nonexistent.sock")
    out = project.doit("lock:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    lock = json.loads((root / "lock" / "mini.lock").read_text())
    docker_lock = json.loads((_gated_template / "lock" / "mini.lock").read_text())
    assert lock["tasks"] == docker_lock["tasks"] and lock["version"] == docker_lock["version"]
