"""Two engines, two builds, one id: the base and a task image built in a second dockerd with its
own fresh data root have the ids the default engine's builds have.

The base build here is the full one (debootstrap from the pinned packages, about a minute and a
half), once per session, on the second engine only: the default engine's base is the one
`make setup` (or the `base_image` fixture) built earlier, so the two builds are minutes to days
apart and share nothing but the pins.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from evaluator.images import BASE_TAG, base_lock_path, build_base, build_task_image, read_pins
from tests.engines import Engine
from tests.helpers import write_files

pytestmark = pytest.mark.docker

_FILES = {"pkg/__init__.py": "", "pkg/core.py": "def answer():\n    return 42\n",
          "run.sh": "#!/bin/sh\necho run\n", "docs/link": "../pkg/core.py"}


@pytest.fixture(scope="session")
def other_client(second_engine: Engine) -> Iterator[docker.DockerClient]:
    client = docker.DockerClient(base_url=second_engine.host, timeout=600)
    yield client
    client.close()


@pytest.fixture(scope="session")
def other_base(other_client: docker.DockerClient) -> str:
    pins = read_pins(base_lock_path())
    assert pins is not None, f"{base_lock_path()} is committed; it must be there"
    return build_base(other_client, BASE_TAG, pins)


def _repo(root: Path) -> Path:
    write_files(root, {k: v for k, v in _FILES.items() if k != "docs/link"})
    (root / "run.sh").chmod(0o755)
    (root / "docs").mkdir()
    (root / "docs/link").symlink_to("../pkg/core.py")
    return root


def test_base_image_has_the_same_id_on_a_fresh_engine(base_image: str, other_base: str) -> None:
    assert other_base == base_image


def test_task_image_has_the_same_id_on_a_fresh_engine(
    docker_client: docker.DockerClient, other_client: docker.DockerClient, base_image: str,
    other_base: str, tmp_path: Path,
) -> None:
    # Two copies of the repository written at different times, with different owners' umask.
    first, second = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    (second / "pkg/core.py").touch()
    tag = "evaluator-test/repro-task:1"
    here = build_task_image(docker_client, base_image=base_image, tag=tag, repo_dir=first)
    there = build_task_image(other_client, base_image=other_base, tag=tag, repo_dir=second)
    docker_client.images.remove(tag)
    assert here == there
