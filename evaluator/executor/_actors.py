"""The named, detached actors the Ray executor shares between drivers: one agent per node and
sandbox backend, and one model bound per endpoint. Any driver may be first to ask for one; the
rest find it.

A node says which sandbox backends it has by the resources it starts with: `sandbox-<backend>`
(`sandbox-docker`, `sandbox-podman`, ...) with the sandboxes it runs at once on that backend. A
node with only the older `sandbox` resource has the Docker backend (as every node had before
there were others)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from evaluator.errors import InfraError
from evaluator.executor._bound import ClusterBound
from evaluator.executor._node import NodeAgent, local_versions
from evaluator.sandbox import BACKENDS

# Ray is an optional extra (`make venv-ray`): each `import ray` sits in the function that needs
# it, so the local executor never loads it.

NAMESPACE = "evaluator"
RESOURCE = "sandbox"  # the Docker backend's, on a node that names no backend
_CONTROL = ("describe", "holds", "expect", "started", "withdraw")
_TRIES = 5


def _node_class() -> Any:
    import ray

    class _Node(NodeAgent):
        pass

    for name in _CONTROL:
        setattr(_Node, name, ray.method(concurrency_group="control")(getattr(NodeAgent, name)))
    _Node.export_image = ray.method(  # type: ignore[method-assign,assignment]
        concurrency_group="images")(NodeAgent.export_image)
    return ray.remote(concurrency_groups={"control": 8, "images": 2})(  # type: ignore[call-overload]
        _Node)


def _get_or_make(name: str, make: Callable[[], Any], check: Callable[[Any], bool]) -> Any:
    """The live actor called `name` that passes `check`, made when missing; one that fails
    `check` is killed and made again. Creation races between drivers end here too."""
    import ray

    for _ in range(_TRIES):
        try:
            handle = ray.get_actor(name, namespace=NAMESPACE)
        except ValueError:
            try:
                handle = make()
            except ValueError:  # another driver made it a moment ago
                continue
        try:
            if check(handle):
                return handle
        except Exception:  # noqa: BLE001 - lost a race to make or restart it: look again
            time.sleep(1)
            continue
        ray.kill(handle)
        time.sleep(1)
    raise InfraError(f"cannot start the Ray actor {name}; is the harness's code changing under "
                     "the run? every node must run the same checkout as the machine running doit")


def backend_resource(backend: str) -> str:
    """The resource a node advertises for its sandboxes on `backend`."""
    return f"{RESOURCE}-{backend}"


def node_slots(resources: dict[str, float], backend: str) -> tuple[str, int]:
    """(the resource, how many sandboxes at once) a node with `resources` offers for
    `backend`; 0 when it does not have that backend."""
    own = backend_resource(backend)
    if own in resources:
        return own, int(resources[own])
    named = any(r.startswith(f"{RESOURCE}-") for r in resources)
    if backend == "docker" and not named:
        return RESOURCE, int(resources.get(RESOURCE, 0))
    return own, 0


def node_backends(resources: dict[str, float]) -> list[str]:
    """The backends a node with `resources` has (at least one slot each)."""
    return [b for b in BACKENDS if node_slots(resources, b)[1] > 0]


_node_cls: Any = None


def node_agent(node_id: str, capacity: int, pool_size: int, max_idle_s: float,
               pull_limit: int, backend: str = "docker", resource: str = RESOURCE) -> Any:
    """The agent of `node_id` for `backend`, holding the node's `resource` (its sandboxes on
    that backend), restarted if it runs other harness code than this driver (its records would
    claim this driver's harness version)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    global _node_cls
    if _node_cls is None:
        _node_cls = _node_class()
    # The Docker agent keeps the name it had before there were backends: an agent left by
    # older code on a running cluster is found, and replaced, rather than left holding slots.
    name = f"evaluator-node-{node_id[:16]}" + ("" if backend == "docker" else f"-{backend}")

    def make() -> Any:
        return _node_cls.options(
            name=name, namespace=NAMESPACE, lifetime="detached", get_if_exists=True,
            num_cpus=0, resources={resource: capacity}, max_concurrency=capacity,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(capacity, pool_size, max_idle_s, pull_limit, backend)

    def same_code(handle: Any) -> bool:
        info = ray.get(handle.describe.remote([]), timeout=120)
        return bool(info["versions"] == local_versions()
                    and info.get("backend", {}).get("name") == backend)

    return _get_or_make(name, make, same_code)


def cluster_bound(endpoint: str, limit: int) -> Any:
    """The semaphore bounding requests in flight to one endpoint, on the head node."""
    import ray


    name = f"evaluator-model-{endpoint}-{limit}"

    def make() -> Any:
        return ray.remote(ClusterBound).options(
            name=name, namespace=NAMESPACE, lifetime="detached", get_if_exists=True, num_cpus=0,
            resources={"node:__internal_head__": 0.001}).remote(limit)

    return _get_or_make(name, make, lambda h: ray.get(h.stats.remote(), timeout=60) is not None)
