"""`doit lock:<set>` reports, per task, what its image's repository holds past the base commit,
and seals it once for every later sandbox."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import docker
import pytest
import yaml

from evaluator.images import seal_tag
from tests.helpers import make_set
from tests.pipeline.support import DOIT
from tests.repos import LEAKY_FIX, build_leaky_image

pytestmark = pytest.mark.docker


def test_the_lock_reports_a_leaking_image_per_task(tmp_path: Path, base_image: str,
                                                   docker_client: docker.DockerClient) -> None:
    image = build_leaky_image("evaluator-test/leaky-lock:1", base_image)
    base = subprocess.run(["docker", "run", "--rm", "--network", "none", image, "git",
                           "rev-parse", "main"], check=True, capture_output=True,
                          text=True).stdout.strip()
    set_dir = make_set(tmp_path / "tasks", "leak", ("add-bug", "leaky"))
    spec = yaml.safe_load((set_dir / "leaky" / "task.yaml").read_text())
    del spec["build"]
    spec.update(image="evaluator-test/leaky-lock:1", base_commit=base)
    (set_dir / "leaky" / "task.yaml").write_text(yaml.safe_dump(spec))
    (set_dir / "leaky" / "gold.patch").write_text(LEAKY_FIX)
    env = {**os.environ, "EVAL_TASKS": str(tmp_path / "tasks"),
           "EVAL_LOCK_DIR": str(tmp_path / "lock"), "EVAL_STORE": str(tmp_path / "store")}
    out = subprocess.run([*DOIT, "lock:leak"], env=env, cwd=tmp_path, text=True,
                         capture_output=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    said = out.stdout + out.stderr
    assert f"task leaky: its image shows more than base commit {base[:12]}" in said
    assert "refs/heads/fix" in said and "gold patch's result for 1 of 1 file(s)" in said
    assert "task add-bug:" not in said and "1 leak (sealed), 1 show nothing" in said
    tasks = json.loads((tmp_path / "lock" / "leak.lock").read_text())["tasks"]
    assert tasks["leaky"]["history"]["leaks"] and not tasks["add-bug"]["history"]["leaks"]
    assert tasks["leaky"]["history"]["later_commits"] >= 6
    (set_dir / "add-bug" / "problem.md").write_text("edited\n")  # stale lock, same images
    again = subprocess.run([*DOIT, "lock:leak"], env=env, cwd=tmp_path, text=True,
                           capture_output=True, timeout=600)
    assert "(2 unchanged since the last lock): 1 leak" in again.stderr, again.stderr
    kept = json.loads((tmp_path / "lock" / "leak.lock").read_text())["tasks"]
    assert kept["leaky"]["history"] == tasks["leaky"]["history"]
    sealed = docker_client.images.get(seal_tag(image, "/testbed", base))
    assert sealed.id != image  # made here, once: every sandbox of the task opens it
    docker_client.images.remove(seal_tag(image, "/testbed", base))
