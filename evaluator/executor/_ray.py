"""The Ray executor (driver side): place work on a node's agent, hand back what it returns.

Work goes only to nodes that have the driver's sandbox backend (`settings.sandbox_backend`: a
node says which it has by its `sandbox-<backend>` resources, see `_actors`). Among them,
placement prefers a node whose engine holds the work's image and has a free sandbox slot, then
any node with a free slot (it fetches the image), then the least loaded holder. A node that dies
or whose engine stops mid-work raises `WorkLost`; the pipeline records it as an infrastructure
error and hands the work to another node.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from evaluator.attempts import AttemptRun
from evaluator.errors import BadInputError, EvalError, InfraError
from evaluator.executor._actors import (
    NAMESPACE,
    backend_resource,
    cluster_bound,
    node_agent,
    node_backends,
    node_slots,
)
from evaluator.executor._node import local_versions
from evaluator.executor._protocol import AttemptWork, WorkLost
from evaluator.grading import GradeOutcome, GradeSpec
from evaluator.sandbox import BACKENDS
from evaluator.settings import Settings, settings
from evaluator.store import Store

# Ray is an optional extra (`make venv-ray`): each `import ray` sits in the function that needs
# it, so the local executor never loads it.

_REFRESH_S = 5.0
_ANSWER_S = 10.0
_POLL_S = 0.5


class RayExecutor:
    """Sandbox work on the nodes of a Ray cluster that have `backend` (default: the setting's)."""

    name = "ray"

    def __init__(self, address: str, *, tries: int = 3, pool_size: int = 2,
                 max_idle_s: float = 30.0, pull_limit: int = 2,
                 backend: str | None = None) -> None:
        self.backend = backend or settings.sandbox_backend
        if self.backend not in BACKENDS:
            raise BadInputError(f"sandbox backend {self.backend!r} is not one of "
                                f"{', '.join(BACKENDS)}; fix {Settings.sandbox_backend.env}")
        self.address, self.tries = address, tries
        self._pool_size, self._max_idle_s, self._pull_limit = pool_size, max_idle_s, pull_limit
        self._agents: dict[str, Any] = {}
        self._refreshed = 0.0
        self._bounds: dict[tuple[str, int], Any] = {}

    # --- the cluster ------------------------------------------------------------------------
    def connect(self) -> None:
        import ray

        if ray.is_initialized():
            return
        for attempt in range(3):  # a head under load may fail to start a client's server once
            try:
                ray.init(address=self.address, namespace=NAMESPACE, log_to_driver=False,
                         logging_level=logging.ERROR)
                return
            except Exception as e:  # noqa: BLE001 - Ray raises many kinds; all mean "not reachable"
                if attempt == 2:
                    raise InfraError(f"cannot reach the Ray cluster at {self.address} ({e}); "
                                     "start one with `ray start --head` or fix EVAL_EXECUTOR"
                                     ) from e
                ray.shutdown()
                time.sleep(2 * (attempt + 1))

    def agents(self) -> dict[str, Any]:
        """node id -> its agent for this backend, for every live node that has the backend
        (agents made as needed)."""
        import ray

        self.connect()
        if self._agents and time.monotonic() - self._refreshed < _REFRESH_S:
            return self._agents
        found: dict[str, Any] = {}
        others: set[str] = set()
        for node in ray.nodes():
            if not node["Alive"]:
                continue
            resource, capacity = node_slots(node["Resources"], self.backend)
            if capacity < 1:
                others.update(node_backends(node["Resources"]))
                continue
            nid = node["NodeID"]
            found[nid] = self._agents.get(nid) or node_agent(
                nid, capacity, self._pool_size, self._max_idle_s, self._pull_limit,
                self.backend, resource)
        if not found:
            want = backend_resource(self.backend)
            has = (f" (its nodes have {', '.join(sorted(others))}: set "
                   f"{Settings.sandbox_backend.env} to one of them)") if others else ""
            raise InfraError(f"the Ray cluster at {self.address} has no live node with the "
                             f"{self.backend} sandbox backend{has}; start workers with "
                             f"`ray start --address ... --resources '{{\"{want}\": 4}}'`")
        self._agents, self._refreshed = found, time.monotonic()
        return found

    def describe(self) -> list[dict[str, Any]]:
        import ray

        return list(ray.get([a.describe.remote([]) for a in self.agents().values()], timeout=60))

    def place(self, ticket: str, image: str, limits: Any, user: str, workdir: str,
              purpose: str, base_commit: str | None = None) -> tuple[str, Any, list[Any], bool]:
        """Queue `ticket` on a node: (node id, agent, the other agents holding the image, whether
        it waits there for a slot).

        The claim is the node's own count, so two drivers placing at once do not both take a
        node's last slot while another node has one. A node that does not answer within seconds
        is left out this time (it may be dying)."""
        import ray

        agents = self.agents()
        refs = {agents[i].describe.remote([image]): i for i in agents}
        ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=_ANSWER_S)
        infos: dict[str, dict[str, Any]] = {}
        for ref in ready:
            try:
                infos[refs[ref]] = ray.get(ref)
            except Exception:  # noqa: BLE001 - a dead or dying node: not a candidate
                self._agents.pop(refs[ref], None)
        if not infos:
            self._refreshed = 0.0
            raise WorkLost(f"no node of the Ray cluster at {self.address} answered within "
                           f"{_ANSWER_S:g}s")
        free = {i: x["capacity"] - x["running"] - x["queued"] for i, x in infos.items()}
        holder = {i: x["holds"][0] for i, x in infos.items()}
        ids = sorted(infos, key=lambda i: (free[i] <= 0, not holder[i], -free[i]))
        if free[ids[0]] <= 0:  # all busy: queue on the least loaded holder, if any
            ids = sorted(infos, key=lambda i: (not holder[i], -free[i]))
        for n, chosen in enumerate(ids):
            free_there = ray.get(agents[chosen].expect.remote(
                ticket, image, limits, user, workdir, purpose, base_commit), timeout=_ANSWER_S)
            if free_there > 0 or n + 1 == len(ids) or free[ids[n + 1]] <= 0:
                break
            agents[chosen].withdraw.remote(ticket)  # taken meanwhile: the next one has room
        return (chosen, agents[chosen], [agents[i] for i in infos if holder[i] and i != chosen],
                free_there <= 0)

    def bound(self, endpoint: str, limit: int) -> Any:
        """The cluster-wide semaphore of one model endpoint (looked up once per process)."""
        self.connect()
        if (endpoint, limit) not in self._bounds:
            self._bounds[endpoint, limit] = cluster_bound(endpoint, limit)
        return self._bounds[endpoint, limit]

    # --- work -------------------------------------------------------------------------------
    def run_attempt(self, work: AttemptWork, store: Store,
                    on_start: Callable[[], None] = lambda: None) -> AttemptRun:
        with _as_infra():
            return self._run_attempt(work, store, on_start)

    def _run_attempt(self, work: AttemptWork, store: Store,
                     on_start: Callable[[], None]) -> AttemptRun:
        ticket = uuid.uuid4().hex
        node, agent, holders, waits = self.place(ticket, work.image, work.limits,
                                                 work.task.spec.user, work.task.spec.workdir,
                                                 "attempt", work.pin.base_commit)
        spec = work.model
        ref = agent.run_attempt.remote(
            ticket, work, local_versions(), self.bound(spec.endpoint_key, spec.max_in_flight),
            spec.timeout_s * 4 + 60, holders)
        if waits:
            self._started(ref, agent, ticket, on_start)
        else:
            on_start()  # it had a slot: it starts now, no need to ask the node every half second
        record, blobs = self._wait(ref, node, "attempt")
        for digest, data in blobs.items():
            if store.put_blob(data) != digest:
                raise InfraError(f"node {node[:12]} sent a blob whose bytes do not match {digest}")
        return record

    def _started(self, ref: Any, agent: Any, ticket: str, on_start: Callable[[], None]) -> None:
        """Call `on_start` once the node has begun the work (or it has ended)."""
        import ray

        while not ray.wait([ref], timeout=_POLL_S)[0]:
            try:
                if ray.get(agent.started.remote(ticket), timeout=_ANSWER_S):
                    break
            except Exception:  # noqa: BLE001 - the node is going: _wait says how
                break
        on_start()

    def grader(self, on_lost: Callable[[WorkLost], None] = lambda _: None) -> RayGrader:
        return RayGrader(self, on_lost)

    def _wait(self, ref: Any, node: str, what: str) -> Any:
        import ray.exceptions as rex

        try:
            return _get(ref)
        except (rex.RayActorError, rex.NodeDiedError, rex.WorkerCrashedError,
                rex.ObjectLostError, rex.GetTimeoutError) as e:
            self._agents.pop(node, None)
            raise WorkLost(f"node {node[:12]} was lost while running the {what} "
                           f"({type(e).__name__}); it goes to another node") from None


@contextlib.contextmanager
def _as_infra() -> Iterator[None]:
    """Anything Ray raises that is not the harness's own error is the infrastructure's."""
    try:
        yield
    except EvalError:
        raise
    except Exception as e:  # noqa: BLE001 - Ray's errors have no common base worth naming
        raise InfraError(f"the Ray executor failed: {type(e).__name__}: {e}") from e


def _get(ref: Any) -> Any:
    import ray
    import ray.exceptions as rex

    try:
        return ray.get(ref)
    except rex.RayTaskError as e:
        cause = getattr(e, "cause", None)
        if isinstance(cause, EvalError):
            raise cause from None
        raise InfraError(f"sandbox work failed on a Ray node: {e}") from None


class RayGrader:
    """A grader whose sandboxes run on the cluster; a grade lost with its node is graded again
    on another (grading writes nothing until the driver stores its outcome). `on_lost` hears of
    each loss that is handed on; the last one is raised, as any infra error is."""

    def __init__(self, executor: RayExecutor,
                 on_lost: Callable[[WorkLost], None] = lambda _: None) -> None:
        self._ex, self._on_lost = executor, on_lost

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        with _as_infra():
            return self._grade(spec, patch, hidden)

    def _grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        for attempt in range(self._ex.tries):
            ticket = uuid.uuid4().hex
            node, agent, holders, _ = self._ex.place(ticket, spec.image, spec.limits, spec.user,
                                                     spec.workdir, "grade", spec.base_commit)
            ref = agent.grade.remote(ticket, spec, patch, hidden, local_versions(), holders)
            try:
                outcome: GradeOutcome = self._ex._wait(ref, node, "grade")
                return outcome
            except WorkLost as e:
                if attempt + 1 == self._ex.tries:
                    raise
                self._on_lost(e)
        raise AssertionError("unreachable")
