"""Placement by sandbox backend on the real cluster: a node says which backends it has by its
`sandbox-<backend>` resources (node a: Docker, podman and daemonless; node b: Docker alone, as `sandbox`),
and work goes only where its backend is."""

from pathlib import Path

import pytest

from evaluator.errors import InfraError
from evaluator.executor import _ray
from evaluator.executor._actors import node_backends, node_slots
from evaluator.executor._ray import RayExecutor
from evaluator.grading import RESOLVED, GradeSpec
from evaluator.pipeline import _context as ctx
from evaluator.pipeline._evaljobs import _work
from evaluator.sandbox import DaemonlessSandboxes, copy_image
from evaluator.store import Store
from tests.daemonless import bring
from tests.executor.cluster import Cluster
from tests.executor.support import CountingProxy
from tests.helpers import GOLD, HIDDEN_FILES
from tests.pipeline.support import Project

pytestmark = pytest.mark.docker


def test_a_node_s_backends_are_its_sandbox_resources() -> None:
    assert node_slots({"sandbox": 4.0}, "docker") == ("sandbox", 4)  # as before backends
    assert node_slots({"sandbox": 4.0}, "podman")[1] == 0
    assert node_slots({"sandbox-podman": 2.0, "sandbox": 4.0}, "docker") == ("sandbox-docker", 0)
    assert node_backends({"sandbox-docker": 1.0, "sandbox-podman": 3.0, "CPU": 2.0}) == [
        "docker", "podman"]


def test_work_goes_only_to_nodes_with_its_backend(cluster: Cluster) -> None:
    cluster.alive()
    a, b = cluster.node("a").node_id, cluster.node("b").node_id
    assert {a, b} <= set(RayExecutor(cluster.gcs, backend="docker").agents())
    podman = RayExecutor(cluster.gcs, backend="podman")
    assert set(podman.agents()) == {a}  # b (and any node with only `sandbox`) is Docker's
    (info,) = podman.describe()
    assert info["backend"]["name"] == "podman" and info["capacity"] == 1


def test_a_backend_no_node_has_is_refused_naming_the_resource(
        cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_ray, "BACKENDS", (*_ray.BACKENDS, "elsewhere"))
    with pytest.raises(InfraError, match="sandbox-elsewhere") as e:
        RayExecutor(cluster.gcs, backend="elsewhere").agents()
    assert "its nodes have daemonless, docker, podman" in str(e.value)


def test_a_grade_through_the_cluster_runs_on_podman_and_says_so(
        cluster: Cluster, podman_sandboxes, docker_client, spec: GradeSpec) -> None:  # noqa: F811
    copy_image(spec.image, docker_client, podman_sandboxes.client)  # as a registry would give
    grader = RayExecutor(cluster.gcs, backend="podman").grader()
    out = grader.grade(spec, GOLD.encode(), {k: v.encode() for k, v in HIDDEN_FILES.items()})
    assert out.outcome == RESOLVED and out.backend["name"] == "podman", out.detail


def test_an_attempt_through_the_cluster_runs_daemonless_on_its_node_and_says_so(
        cluster: Cluster, gated: tuple[Project, CountingProxy],
        daemonless_sandboxes: DaemonlessSandboxes, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    project, _ = gated
    for name in ("EVAL_TASKS", "EVAL_LOCK_DIR", "EVAL_STORE", "EVAL_EVALS", "EVAL_AGENTS",
                 "EVAL_SIMULATED_URL"):
        monkeypatch.setenv(name, project.env[name])
    plan = ctx.eval_plan("mini")
    work = _work(plan, plan.attempts[0])
    bring(daemonless_sandboxes, work.image)  # as `evaluator images pull` gives it, by id
    ex = RayExecutor(cluster.gcs, backend="daemonless")
    assert set(ex.agents()) == {cluster.node("a").node_id}  # the one node that has it
    run = ex.run_attempt(work, Store(tmp_path / "store", remote=None))
    assert run.backend == daemonless_sandboxes.backend().to_record()  # bubblewrap's version
    assert run.backend["name"] == "daemonless" and run.exit_reason == "submitted", run.exit_detail
