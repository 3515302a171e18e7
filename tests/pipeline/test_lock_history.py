"""`doit lock:<set>` reports, per task, what its image's repository holds past the base commit,
and seals it once for every later sandbox."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest
import yaml

from evaluator.images import seal_tag
from tests.helpers import make_set, make_task
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


@contextlib.contextmanager
def _created_from(image_id: str) -> Iterator[list[str]]:
    """The containers created on the engine from `image_id` while the block runs, from the
    engine's own event stream (followed live: its replay buffer is short on a busy engine)."""
    found: list[str] = []
    watch = subprocess.Popen(["docker", "events", "--since", f"{time.time():.3f}", "--filter",
                              "type=container", "--filter", "event=create", "--format",
                              "{{.Actor.Attributes.image}} {{.Actor.ID}}"],
                             stdout=subprocess.PIPE, text=True)
    time.sleep(1)  # subscribed before the block's first container
    try:
        yield found
        time.sleep(1)  # the last events reach the stream
    finally:
        watch.terminate()
        out, _ = watch.communicate(timeout=30)
    found += [line.split()[1] for line in out.splitlines()
              if line.split()[0] in (image_id, image_id.removeprefix("sha256:"))]


def test_tasks_sharing_an_image_are_read_once_per_commit(tmp_path: Path, base_image: str,
                                                         docker_client: docker.DockerClient) -> None:
    """Issue 31: six tasks on one image at two base commits start four containers of it (a
    commit question and a read per commit) and two seals; relocked, none."""
    image = build_leaky_image("evaluator-test/leaky-shared:1", base_image)
    set_dir = make_set(tmp_path / "tasks", "shared", ())
    for i in range(6):
        make_task(set_dir, f"t-{i}", image="evaluator-test/leaky-shared:1", build=None,
                  base_commit="main" if i % 2 else "v0.1", gold=LEAKY_FIX)
    shas = {ref: subprocess.run(["docker", "run", "--rm", "--network", "none", image, "git",
                                 "rev-parse", f"{ref}^{{commit}}"], check=True,
                                capture_output=True, text=True).stdout.strip()
            for ref in ("main", "v0.1")}
    seals = [seal_tag(image, "/testbed", sha) for sha in shas.values()]
    subprocess.run(["docker", "rmi", *seals], capture_output=True)  # made here, below
    env = {**os.environ, "EVAL_TASKS": str(tmp_path / "tasks"), "EVAL_LOCK_JOBS": "4",
           "EVAL_LOCK_DIR": str(tmp_path / "lock"), "EVAL_STORE": str(tmp_path / "store")}
    try:
        with _created_from(image) as created:
            out = subprocess.run([*DOIT, "lock:shared"], env=env, cwd=tmp_path, text=True,
                                 capture_output=True, timeout=600)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "2 read(s) of 2 distinct image and base commit(s)" in out.stderr, out.stderr
        assert len(created) == 6, created  # 2 commit questions, 2 reads, 2 seals
        lock = json.loads((tmp_path / "lock" / "shared.lock").read_text())["tasks"]
        assert {t["base_commit"]["sha"] for t in lock.values()} == set(shas.values())
        assert all(t["history"]["leaks"] and t["history"]["gold"] for t in lock.values())
        (set_dir / "t-0" / "problem.md").write_text("edited\n")  # stale lock, same images
        with _created_from(image) as created:
            again = subprocess.run([*DOIT, "lock:shared"], env=env, cwd=tmp_path, text=True,
                                   capture_output=True, timeout=600)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "0 read(s) of 2 distinct" in again.stderr and "(6 unchanged" in again.stderr
        assert created == []
    finally:
        subprocess.run(["docker", "rmi", *seals], capture_output=True)
