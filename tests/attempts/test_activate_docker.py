"""A task's `activate`: the agent's commands and the graded test command get the same
environment, as SWE-bench images activate theirs (a generated image with an `activate` script of
conda's shape; no conda)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from pathlib import Path

import docker
import pytest

from evaluator.agents import load_agent
from evaluator.attempts import run_attempt
from evaluator.grading import DockerGrader, GradeSpec, grade_spec
from evaluator.lock import TaskPin, resolve_lock
from evaluator.model import ScriptedModel
from evaluator.sandbox import DockerSandboxes
from evaluator.store import Store
from evaluator.taskset import Task, load_task_set
from tests.attempts.support import REPO, bash, observations
from tests.helpers import GOLD, make_set, make_task
from tests.lock.support import FakeResolver

pytestmark = pytest.mark.docker
ACTIVATE = ". /opt/miniconda3/bin/activate && conda activate testbed"
# `python` exists only inside the environment, as in SWE-bench's images.
_ENV_IMAGE = """FROM {image}
USER root
RUN mkdir -p /opt/miniconda3/bin /opt/testbed/bin && ln -s /usr/bin/python3 /opt/testbed/bin/python \
 && printf '%s\\n' 'conda() {{ PATH=/opt/testbed/bin:$PATH; CONDA_PREFIX=/opt/testbed;' \
   '  CONDA_DEFAULT_ENV=$2; TESTBED_FLAG=on; export PATH CONDA_PREFIX CONDA_DEFAULT_ENV TESTBED_FLAG; }}' \
   > /opt/miniconda3/bin/activate
USER 1000:1000
"""


@pytest.fixture(scope="module")
def env_image(task_image: str) -> str:
    with tempfile.TemporaryDirectory() as ctx:
        (Path(ctx) / "Dockerfile").write_text(_ENV_IMAGE.format(image=task_image))
        out = subprocess.run(["docker", "build", "-q", "--network", "none", ctx], check=True,
                             capture_output=True, text=True,
                             env={**os.environ, "DOCKER_BUILDKIT": "0"})
    return out.stdout.strip()


def _task(root: Path, **fields: object) -> Task:
    set_dir = make_set(root / "tasks", "mini", ())
    make_task(set_dir, "add-bug", **fields)
    return load_task_set("mini", root / "tasks").tasks[0]


def _attempt(tmp_path: Path, sandboxes: DockerSandboxes, spec: GradeSpec, image: str,
             activate: str) -> str:
    task = _task(tmp_path, activate=activate)
    pin = TaskPin(image_ref="x", image=image, base_ref="HEAD", base_commit=spec.base_commit,
                  files={}, hidden_tests="", test_command=spec.test_command)
    store = Store(tmp_path / "store")
    rec = run_attempt(store=store, sandboxes=sandboxes, agent=load_agent("reference-strong",
                      REPO / "agents"), model=ScriptedModel([
                          bash('command -v python; echo "env=$CONDA_DEFAULT_ENV $TESTBED_FLAG"'),
                          bash("echo EVAL_SUBMIT")]),
                      task=task, pin=pin, limits=spec.limits, key="cd" * 32, seed=1)
    return observations(store, rec)[0]


def test_the_agents_commands_run_in_the_tasks_environment(
        tmp_path: Path, sandboxes: DockerSandboxes, spec: GradeSpec, env_image: str) -> None:
    seen = _attempt(tmp_path, sandboxes, spec, env_image, ACTIVATE)
    assert "/opt/testbed/bin/python" in seen and "env=testbed on" in seen


def test_without_activate_the_image_is_as_it_is(tmp_path: Path, sandboxes: DockerSandboxes,
                                                spec: GradeSpec, env_image: str) -> None:
    seen = _attempt(tmp_path, sandboxes, spec, env_image, "")
    assert "/opt/testbed/bin/python" not in seen and "env= \n" in seen


def test_the_test_command_gets_the_same_environment(
        tmp_path: Path, grader: DockerGrader, spec: GradeSpec, env_image: str,
        hidden: dict[str, bytes]) -> None:
    task = _task(tmp_path, activate=ACTIVATE, build=None, image="x:1",
                 test_command=spec.test_command.replace("python3 -m", "python -m"))
    ts = load_task_set("mini", tmp_path / "tasks")
    built = grade_spec(ts, task, resolve_lock(ts, FakeResolver()))
    assert built.test_command == f"{ACTIVATE} && {task.spec.test_command}"
    run = dataclasses.replace(spec, image=env_image, test_command=built.test_command)
    assert grader.grade(run, GOLD.encode(), hidden).outcome == "resolved"
    bare = dataclasses.replace(run, test_command=task.spec.test_command)
    assert grader.grade(bare, GOLD.encode(), hidden).outcome != "resolved"  # python is the env's


def test_a_failing_activation_names_the_field(tmp_path: Path, sandboxes: DockerSandboxes,
                                              spec: GradeSpec,
                                              docker_client: docker.DockerClient) -> None:
    from evaluator.errors import BadInputError

    with pytest.raises(BadInputError, match="fix `activate` in task.yaml"):
        _attempt(tmp_path, sandboxes, spec, spec.image, ". /opt/nowhere/activate")
