"""Real-size fixtures on the real engine: a 100 MB, 20,000-file repository with history in an
image built the way a user builds theirs, and an awkward suite built by the harness."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import docker
import docker.errors
import pytest
import yaml

from evaluator.hashing import hash_file
from tests.pipeline.support import DOIT, REPO
from tests.realsize.support import BIG_TAG
from tests.repos import build_big_image


@pytest.fixture(scope="session")
def big_image(docker_client: docker.DockerClient, base_image: str) -> str:
    """Built once per engine: tagged by the generator's own hash, so a changed generator
    builds anew and an unchanged one is reused."""
    return build_big_image(f"{BIG_TAG}:{hash_file(str(REPO / 'tests' / 'repos.py'))[:12]}",
                           base_image)


@pytest.fixture
def doit(tmp_path: Path, docker_client, base_image) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`doit` over a throwaway project in tmp_path with one set, `real`."""
    (tmp_path / "tasks" / "real").mkdir(parents=True)
    (tmp_path / "tasks" / "real" / "set.yaml").write_text(yaml.safe_dump(
        {"name": "real", "gold_reps": 1, "exploits": [],
         "sandbox": {"disk_mb": 400, "memory_mb": 2048, "exec_timeout_s": 300}}))
    env = {**os.environ, "EVAL_TASKS": str(tmp_path / "tasks"), "EVAL_LOCK_DIR": str(tmp_path / "lock"),
           "EVAL_STORE": str(tmp_path / "store"), "EVAL_EVALS": str(tmp_path / "evals"),
           "EVAL_AGENTS": str(tmp_path / "agents"), "PYTHONPATH": str(REPO)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*DOIT, *args], env=env, cwd=tmp_path, text=True,
                              capture_output=True, timeout=900)
    return run
