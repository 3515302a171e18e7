"""What the grading tests share that is not a fixture: a cheat-battery layout built on an engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator.grading import GradeSpec
from evaluator.hashing import hash_json
from evaluator.images import build_task_image
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import SandboxLimits
from tests.grading.layouts import LAYOUTS, Layout
from tests.helpers import TEST_CMD, write_files


def make_layout_case(name: str, docker_client: Any, base_image: str,
                     tmp_path_factory: pytest.TempPathFactory
                     ) -> tuple[Layout, GradeSpec, dict[str, bytes]]:
    """(layout, grade spec, hidden files) of the cheat battery's layout `name`, on the engine."""
    lay = next(x for x in LAYOUTS if x.name == name)
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
