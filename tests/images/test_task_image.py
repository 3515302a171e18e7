"""Task images: one deterministic commit of the repository, rebuilt only when something changed."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors
import pytest

from evaluator.images import BASE_TAG, build_task_image, ensure_base_image, task_image_current
from evaluator.sandbox import DockerSandboxes, SandboxLimits

pytestmark = pytest.mark.docker

_TAG = "evaluator-test/images-small-repo:1"
_FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": "def answer():\n    return 42\n",
    "tests/test_core.py": "from pkg.core import answer\n\ndef test_answer():\n"
    "    assert answer() == 42\n",
    "run.sh": "#!/bin/sh\necho run\n",
}


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("small-repo")
    for rel, text in _FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    (repo / "run.sh").chmod(0o755)
    (repo / "pkg/__pycache__").mkdir()
    (repo / "pkg/__pycache__/core.cpython-311.pyc").write_bytes(b"stale")
    return repo


@pytest.fixture(scope="module")
def task_image(
    docker_client: docker.DockerClient, base_image: str, small_repo: Path
) -> Iterator[str]:
    image_id = build_task_image(docker_client, base_image=base_image, tag=_TAG, repo_dir=small_repo)
    yield image_id
    try:
        docker_client.images.remove(_TAG, force=True)
    except docker.errors.APIError:
        pass  # still used by a container another test leaked; cleanup_leftovers gets it


def test_task_image_holds_one_clean_commit(sandboxes: DockerSandboxes, task_image: str) -> None:
    with sandboxes.open(task_image, SandboxLimits(), purpose="test") as sb:
        count = sb.exec("git rev-list --all --count").output
        status = sb.exec("git status --porcelain --ignored").output
        extras = sb.exec("git remote; git reflog 2>&1; git stash list; ls .git/logs 2>&1").output
        tests = sb.exec("python3 -m pytest -q -p no:cacheprovider tests; ./run.sh")
        owner = sb.exec("stat -c '%u:%g' pkg/core.py .git/HEAD").output
    assert count == "1\n"
    assert status == ""
    assert "No such file" in extras and "origin" not in extras
    assert tests.exit_code == 0 and tests.output.endswith("run\n"), tests.output
    assert owner == "1000:1000\n1000:1000\n"


def _host_commit(repo: Path) -> str:
    """The sha git on the host gives the same files, committed with the image's fixed identity."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"] = "evaluator"
        env[f"GIT_{who}_EMAIL"] = "evaluator@localhost"
        env[f"GIT_{who}_DATE"] = "2000-01-01T00:00:00Z"
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True)
    return rev.stdout


def test_commit_sha_depends_only_on_content(
    sandboxes: DockerSandboxes, task_image: str, small_repo: Path, tmp_path: Path
) -> None:
    # git is on every machine this runs on (CI included); a missing one is a failure, not a skip.
    assert shutil.which("git"), "needs git on the host to compute the expected commit"
    copy = shutil.copytree(small_repo, tmp_path / "copy", ignore=shutil.ignore_patterns("__py*"))
    with sandboxes.open(task_image, SandboxLimits(), purpose="test") as sb:
        assert sb.exec("git rev-parse HEAD").output == _host_commit(copy)


def test_task_image_current_tracks_repo_and_base(
    docker_client: docker.DockerClient,
    base_image: str,
    small_repo: Path,
    task_image: str,
    tmp_path: Path,
) -> None:
    repo = shutil.copytree(small_repo, tmp_path / "repo")
    assert task_image_current(docker_client, _TAG, repo, base_image)
    assert task_image_current(docker_client, _TAG, repo, BASE_TAG)
    (repo / "pkg/__pycache__/other.pyc").write_bytes(b"cache noise is ignored")
    assert task_image_current(docker_client, _TAG, repo, base_image)
    (repo / "pkg/core.py").write_text("def answer():\n    return 41\n")
    assert not task_image_current(docker_client, _TAG, repo, base_image)
    assert not task_image_current(docker_client, "evaluator-test/never-built:1", repo, base_image)


def test_base_image_is_reused(docker_client: docker.DockerClient, base_image: str) -> None:
    started = time.monotonic()
    assert ensure_base_image(docker_client, BASE_TAG) == base_image
    assert time.monotonic() - started < 5
