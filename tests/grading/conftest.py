"""A tiny task image and its grade spec, built once per session on the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.grading import DockerGrader, GradeSpec
from evaluator.hashing import hash_json
from evaluator.images import build_task_image
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import SandboxLimits
from tests.helpers import HIDDEN_FILES, REPO_FILES, TEST_CMD, write_files


@pytest.fixture(scope="session")
def task_image(docker_client, base_image, tmp_path_factory: pytest.TempPathFactory) -> str:
    repo = tmp_path_factory.mktemp("repo")
    write_files(repo, REPO_FILES)
    return build_task_image(docker_client, base_image=base_image, tag="evaluator-test/calc:1",
                            repo_dir=Path(repo))


@pytest.fixture(scope="session")
def spec(docker_client, task_image: str) -> GradeSpec:
    sha = DockerPinResolver(docker_client).commit(task_image, "/testbed", "HEAD")
    return GradeSpec(
        task_set="t", task_id="add-bug", image=task_image, workdir="/testbed", user="1000:1000",
        base_commit=sha, test_command=TEST_CMD, hidden_tests_hash=hash_json(HIDDEN_FILES),
        fail_to_pass=("tests/test_hidden.py::test_add",),
        pass_to_pass=("tests/test_visible.py::test_zero", "tests/test_hidden.py::test_zero_hidden"),
        test_files=(), limits=SandboxLimits(memory_mb=512, exec_timeout_s=60),
    )


@pytest.fixture(scope="session")
def grader(sandboxes) -> DockerGrader:
    return DockerGrader(sandboxes)


@pytest.fixture
def hidden() -> dict[str, bytes]:
    return {k: v.encode() for k, v in HIDDEN_FILES.items()}


@pytest.fixture(scope="session", params=["calc", "shop"])
def layout_case(request, docker_client, base_image, tmp_path_factory: pytest.TempPathFactory):
    """(layout, its grade spec, its hidden files) for each task layout of the cheat battery."""
    from tests.grading.layouts import LAYOUTS

    lay = next(x for x in LAYOUTS if x.name == request.param)
    repo = tmp_path_factory.mktemp(f"repo-{lay.name}")
    write_files(repo, lay.repo)
    image = build_task_image(docker_client, base_image=base_image,
                             tag=f"evaluator-test/layout-{lay.name}:1", repo_dir=Path(repo))
    sha = DockerPinResolver(docker_client).commit(image, "/testbed", "HEAD")
    spec = GradeSpec(
        task_set="t", task_id=lay.name, image=image, workdir="/testbed", user="1000:1000",
        base_commit=sha, test_command=TEST_CMD, hidden_tests_hash=hash_json(lay.hidden),
        fail_to_pass=lay.fail_to_pass, pass_to_pass=lay.pass_to_pass, test_files=(),
        limits=SandboxLimits(memory_mb=512, exec_timeout_s=60),
    )
    return lay, spec, {k: v.encode() for k, v in lay.hidden.items()}
