"""A node killed under its work on the real cluster: its grade is recorded as an infra error and
graded on another node; the model permits it held come back, and the cluster-wide bound is never
exceeded. A permit held past its lease comes back too, once."""

from __future__ import annotations

import textwrap
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from evaluator.gold import plan_gold
from evaluator.grading import hidden_test_bytes
from evaluator.lock import load_locked
from evaluator.pipeline._evaljobs import lost_grade_recorder
from evaluator.sandbox import SandboxLimits
from evaluator.store import Store
from evaluator.taskset import load_task_set
from tests.executor.cluster import Cluster
from tests.executor.support import CountingProxy
from tests.pipeline.support import Project

pytestmark = pytest.mark.docker

# The gold fix, and three seconds at import: long enough to kill the node under the grade.
SLOW_GOLD = textwrap.dedent("""\
    diff --git a/calc/ops.py b/calc/ops.py
    --- a/calc/ops.py
    +++ b/calc/ops.py
    @@ -1,2 +1,4 @@
    +import time
    +time.sleep(3)
     def add(a, b):
    -    return a - b
    +    return a + b
    """).encode()


def _hold_permit(bound: Any, node_id: str) -> None:
    from evaluator.executor._bound import cluster_limiter

    with cluster_limiter(bound, node_id, 600)():
        time.sleep(600)  # until its node dies


def _wait(cond: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_killed_nodes_grade_is_recorded_and_regraded_and_its_permits_come_back(
        cluster: Cluster, gated: tuple[Project, CountingProxy], tmp_path: Path) -> None:
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from evaluator.executor._actors import cluster_bound
    from evaluator.executor._ray import RayExecutor

    project, _ = gated
    ts = load_task_set("mini", project.root / "tasks")
    lock = load_locked(ts, str(project.root / "lock"))
    plan = next(p for p in plan_gold(ts, lock) if p.task.id == "add-bug")
    victim = cluster.start_worker("c", 1)  # on the default engine, which holds the image
    ex = RayExecutor(cluster.gcs)
    agents = ex.agents()
    held = [(t, a) for nid, a in agents.items() if nid != victim.node_id
            for t in [f"hold-{uuid.uuid4().hex[:8]}"]]
    for ticket, agent in held:  # the other nodes look full, so the grade goes to the victim
        ray.get(agent.expect.remote(ticket, "x", SandboxLimits(), "1000:1000", "/tmp", "grade"))
    bound = cluster_bound(f"test-{uuid.uuid4().hex[:8]}", 1)
    ray.remote(_hold_permit).options(num_cpus=0, scheduling_strategy=(
        NodeAffinitySchedulingStrategy(victim.node_id, soft=False))).remote(bound, victim.node_id)
    store = Store(tmp_path / "store", remote=None)
    done: dict[str, Any] = {}

    def grade() -> None:
        recorder = lost_grade_recorder(store, "k-lost", "add-bug", "gold", "add-bug gold rep 0")
        done["outcome"] = ex.grader(recorder).grade(plan.spec, SLOW_GOLD,
                                                     hidden_test_bytes(ts, plan.task, lock))

    grader = threading.Thread(target=grade)
    try:
        grader.start()
        _wait(lambda: ray.get(bound.stats.remote())["held"] == 1)
        _wait(lambda: ray.get(agents[victim.node_id].describe.remote([]))["running"] == 1)
        victim.kill()
        me = ray.get_runtime_context().get_node_id()
        ray.get(bound.acquire.remote("after", me, 60), timeout=30)  # the dead node's came back
        assert ray.get(bound.stats.remote()) == {"limit": 1, "held": 1, "peak": 1,
                                                 "reclaimed": 1}
        ray.get(bound.release.remote("after"))
        assert ray.get(bound.stats.remote())["held"] == 0
        grader.join(120)
        assert done["outcome"].outcome == "resolved"  # graded again, on another node
        [error] = store.errors("grade", "k-lost")
        assert error["cause"] == "WorkLost" and victim.node_id[:12] in error["message"]
    finally:
        for ticket, agent in held:
            ray.get(agent.withdraw.remote(ticket))
        ray.kill(bound)


def test_a_permit_past_its_lease_comes_back_once(cluster: Cluster) -> None:
    import ray

    from evaluator.executor._actors import cluster_bound

    cluster.alive()
    bound = cluster_bound(f"test-{uuid.uuid4().hex[:8]}", 1)
    me = ray.get_runtime_context().get_node_id()
    try:
        ray.get(bound.acquire.remote("hung", me, 1.0))  # its holder never releases it in time
        t0 = time.monotonic()
        ray.get(bound.acquire.remote("next", me, 60), timeout=30)
        assert time.monotonic() - t0 >= 0.9
        ray.get(bound.release.remote("hung"))  # late: it frees nobody else's permit
        assert ray.get(bound.stats.remote()) == {"limit": 1, "held": 1, "peak": 1,
                                                 "reclaimed": 1}
        ray.get(bound.release.remote("next"))
        assert ray.get(bound.stats.remote())["held"] == 0
    finally:
        ray.kill(bound)
