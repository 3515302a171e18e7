"""`doit images`/`doit lock` build each tag a set builds once, several at a time, and refuse two
tasks that would build different repositories under one tag (the lock would pin one of them for
both)."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.helpers import make_set, make_task
from tests.pipeline.support import DOIT

pytestmark = pytest.mark.docker


def _doit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / "store"), "EVAL_LOCK_JOBS": "3"}
    return subprocess.run([*DOIT, *args], env=env, cwd=root, text=True, capture_output=True,
                          timeout=600)


def test_one_tag_from_two_repositories_is_refused(tmp_path: Path, base_image: str) -> None:
    set_dir = make_set(tmp_path / "tasks", "dup", ())
    for tid in ("a-bug", "b-bug"):
        make_task(set_dir, tid, image="evaluator-test/dup-never-built:1")
    (set_dir / "b-bug" / "repo" / "calc" / "ops.py").write_text("def add(a, b):\n    return 0\n")
    out = _doit(tmp_path, "images:dup")
    assert out.returncode != 0
    assert ("tasks 'a-bug', 'b-bug' build image 'evaluator-test/dup-never-built:1' from "
            "different repositories" in out.stdout + out.stderr), out.stdout + out.stderr


def test_a_tag_several_tasks_share_is_built_once(tmp_path: Path, base_image: str) -> None:
    tag = f"evaluator-test/shared-build-{uuid.uuid4().hex[:8]}:1"
    set_dir = make_set(tmp_path / "tasks", "shared", ())
    for tid in ("a-bug", "b-bug", "c-bug"):
        make_task(set_dir, tid, image=tag)  # the same repository files in each task folder
    make_task(set_dir, "d-bug", image=tag.replace(":1", "-d:1"))
    try:
        out = _doit(tmp_path, "lock:shared")
        assert out.returncode == 0, out.stdout + out.stderr
        said = out.stdout + out.stderr
        assert said.count(f"building {tag}\n") == 1 and said.count("building evaluator-test/") == 2
        # Built from the same files, both tags are one image (reproducible ids): read once.
        assert ", 4 tasks)" in out.stdout and "1 read(s) of 1 distinct image" in said
    finally:
        subprocess.run(["docker", "rmi", tag, tag.replace(":1", "-d:1")], capture_output=True)
