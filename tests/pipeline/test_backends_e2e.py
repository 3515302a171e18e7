"""The gold gate and an eval on podman and on the daemonless backend, through the real `doit`: the
same keys and outcomes as on Docker, and each record says which backend ran it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.sandbox import copy_image
from evaluator.store import Store
from tests.daemonless import bring
from tests.pipeline.support import Project, executed, new_project

pytestmark = pytest.mark.docker


def _grades(root: Path) -> dict[str, tuple[str, str, dict[str, str]]]:
    """grade key -> (what was graded, outcome, each test's status)."""
    return {r["key"]: (r["subject"], r["outcome"], r["tests"])
            for r in Store(root / "store").iter_records("grade")}


def _backends(root: Path, kind: str) -> set[str]:
    return {(r.get("backend") or {}).get("name", "?") for r in Store(root / "store").iter_records(kind)}


@pytest.fixture(scope="module", params=["podman", "daemonless"])
def on_backend(request: pytest.FixtureRequest, _gated_template: Path,
               tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The gated project's set, locked as on Docker, gold-gated and evaluated on a backend."""
    backend = request.param
    sandboxes = request.getfixturevalue(f"{backend}_sandboxes")
    root = tmp_path_factory.mktemp(backend) / "project"
    shutil.copytree(_gated_template, root, symlinks=True)
    shutil.rmtree(root / "store")
    if backend == "daemonless":  # its store gets the lock's images by id, as a registry gives
        lock = json.loads((root / "lock" / "mini.lock").read_text())
        for pin in lock["tasks"].values():
            bring(sandboxes, pin["image"]["pinned"])
    project = new_project(root, files=False)
    project.env["EVAL_SANDBOX_BACKEND"] = backend
    gold = project.doit("-n", "2", "-P", "process", "gold:mini")
    assert gold.returncode == 0, gold.stdout + gold.stderr
    assert len(executed(gold.stdout, "grade:")) == 8
    project.eval_config()
    out = project.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(executed(out.stdout, "attempt:")) == 4
    return project


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
    on_backend.env["EVAL_SANDBOX_BACKEND"] = "docker"
    again = on_backend.doit("-n", "2", "-P", "process", "eval:mini")
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
