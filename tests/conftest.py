"""Fixtures shared by every test package: a real Docker engine, the base image, sandboxes, a
task image with its grade spec and grader, the simulated model's endpoint, a doit project (plain
and gated), a registry on loopback. A fixture one package alone uses lives in its conftest;
helpers that are not fixtures live in support modules (tests/helpers.py, tests/<pkg>/support.py).

Docker tests use the real engine, never mocks: the point is that the isolation holds. Without an
engine they skip on a workstation but fail in CI, where a skip would hide a broken setup.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import httpx
import pytest

from evaluator.errors import EvalError
from evaluator.filelock import exclusive
from evaluator.grading import DockerGrader, GradeSpec
from evaluator.hashing import hash_json
from evaluator.images import BASE_TAG, build_task_image, ensure_base_image
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import (
    DaemonlessSandboxes,
    DockerSandboxes,
    PodmanSandboxes,
    Sandboxes,
    SandboxLimits,
    podman_client,
)
from evaluator.sandbox import docker_client as connect
from evaluator.simulated import SimulatedEndpoint, start_simulated_endpoint
from tests.engines import Engine, rootless_podman_service, start_engine
from tests.helpers import (
    HIDDEN_FILES,
    REPO_FILES,
    TEST_CMD,
    free_port,
    shared_tmp,
    unavailable,
    write_files,
)
from tests.pipeline.support import Project, new_project
from tests.schedule import Recorder, make_scheduler
from tests.simulated.support import GOLD, PROBLEM


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "docker: needs a running Docker engine (real containers)")


@pytest.hookimpl(optionalhook=True)  # `-p no:xdist` runs have no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`, longest scope first, groups that share a fixture on one worker."""
    return make_scheduler(config, log)


_RECORDER = Recorder()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _RECORDER.add(report.nodeid, report.duration)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        _RECORDER.write()


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    try:
        client = connect()
    except EvalError as e:
        unavailable(f"Docker is unreachable: {e}")
    yield client
    client.close()


@pytest.fixture(scope="session")
def base_image(docker_client: docker.DockerClient) -> str:
    """The harness's base image id; built once per machine (about 2 minutes), then reused."""
    try:
        return ensure_base_image(docker_client, BASE_TAG)
    except EvalError as e:
        unavailable(f"cannot build the base image {BASE_TAG}: {e}")


@pytest.fixture(scope="session")
def sandboxes(docker_client: docker.DockerClient) -> DockerSandboxes:
    return DockerSandboxes(docker_client)


# The backends the hostile-sandbox, grading and gold tests run on (`backend_sandboxes`).
BACKENDS = ("docker", "podman", "podman-rootless", "daemonless")
_FIXTURES = {"docker": "sandboxes", "podman-rootless": "rootless_podman"}


@pytest.fixture(scope="session")
def podman_sandboxes(docker_client: docker.DockerClient) -> Iterator[PodmanSandboxes]:
    """Sandboxes on podman's service (.ci/podman-up starts it); images come over from the
    Docker engine as they are first opened, with their ids."""
    try:
        client = podman_client()
    except EvalError as e:
        unavailable(f"podman's service is unreachable: {e}")
    yield PodmanSandboxes(client)
    client.close()


@pytest.fixture(scope="session")
def rootless_podman_host() -> Iterator[str]:
    """podman's service run by the unprivileged user .ci/podman-up --tests sets up, on a socket
    of its own: its address (EVAL_PODMAN_HOST)."""
    with rootless_podman_service() as host:
        yield host


@pytest.fixture(scope="session")
def rootless_podman(rootless_podman_host: str) -> Iterator[PodmanSandboxes]:
    """Sandboxes on the rootless podman service."""
    client = docker.DockerClient(base_url=rootless_podman_host)
    yield PodmanSandboxes(client)
    client.close()


@pytest.fixture(scope="session")
def daemonless_sandboxes(docker_client: docker.DockerClient) -> DaemonlessSandboxes:
    """Daemonless sandboxes (bubblewrap, no daemon) whose images come over from the Docker
    engine, by id, the first time each is opened (tests/daemonless.py)."""
    from tests.daemonless import DockerFed, missing

    lacking = missing()
    if lacking:
        unavailable(f"daemonless sandboxes: {lacking}")
    return DockerFed()


@pytest.fixture(scope="session", params=BACKENDS)
def backend_sandboxes(request: pytest.FixtureRequest) -> Sandboxes:
    """Each backend's sandboxes in turn: a test taking this runs once per backend."""
    name = _FIXTURES.get(request.param, f"{request.param}_sandboxes")
    sandboxes: Sandboxes = request.getfixturevalue(name)
    return sandboxes


@pytest.fixture(scope="session")
def second_engine() -> Iterator[Engine]:
    """A second Docker engine for the whole session, stopped and removed at its end."""
    try:
        engine = start_engine()
    except (RuntimeError, OSError) as e:
        unavailable(f"cannot start a second Docker engine: {e}")
    yield engine
    engine.stop()


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


@pytest.fixture(scope="session")
def tasks_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tasks")
    task = root / "toy" / "calc-add"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text("id: calc-add\nimage: toy:1\n")
    (task / "problem.md").write_text(PROBLEM + "\n")
    (task / "gold.patch").write_text(GOLD)
    return root


@pytest.fixture(scope="session")
def endpoint(tasks_root: Path) -> Iterator[SimulatedEndpoint]:
    with start_simulated_endpoint(tasks_root) as running:
        yield running


@pytest.fixture
def project(tmp_path: Path, docker_client, base_image) -> Project:
    return new_project(tmp_path)


@pytest.fixture(scope="session")
def _gated_template(tmp_path_factory: pytest.TempPathFactory, docker_client,
                    base_image) -> Path:
    """One project locked and gold-gated per test run, made by the first worker that asks and
    read by every other (a lock and gold gate cost 20 to 40 s); copy it, never change it."""
    shared = shared_tmp(tmp_path_factory)
    root = shared / "gated-template"
    with exclusive(shared / "gated-template.lock"):
        if not (root / ".done").exists():
            shutil.rmtree(root, ignore_errors=True)
            template = new_project(root)
            lock = template.doit("lock:mini")
            assert lock.returncode == 0, lock.stdout + lock.stderr
            gold = template.doit("-n", "2", "-P", "process", "gold:mini")
            assert gold.returncode == 0, gold.stdout + gold.stderr
            (root / ".done").touch()
    return root


@pytest.fixture
def gated(_gated_template: Path, tmp_path: Path) -> Project:
    """A locked, gold-gated project of its own (a copy: its store, lock and doit state)."""
    root = tmp_path / "project"
    shutil.copytree(_gated_template, root, symlinks=True)
    project = new_project(root, files=False)
    project.eval_config()
    return project


@pytest.fixture(scope="session")
def _evaluated_template(_gated_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gated project after one `doit eval` of both agents (4 attempts, 4 grades)."""
    root = tmp_path_factory.mktemp("evaluated") / "project"
    shutil.copytree(_gated_template, root, symlinks=True)
    project = new_project(root, files=False)
    project.eval_config()
    out = project.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    return root


@pytest.fixture
def evaluated(_evaluated_template: Path, tmp_path: Path) -> Project:
    """A gated project whose eval has run once, of its own (a copy)."""
    root = tmp_path / "project"
    shutil.copytree(_evaluated_template, root, symlinks=True)
    return new_project(root, files=False)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("docker-registry")
    if binary is None:
        pytest.fail("docker-registry is missing: apt-get install docker-registry (.ci/docker-up does)")
    root, port = Path(tmp_path_factory.mktemp("registry")), free_port()
    (root / "config.yml").write_text(
        f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {root / 'data'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n")
    proc = subprocess.Popen([binary, "serve", str(root / "config.yml")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/v2/", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait()
