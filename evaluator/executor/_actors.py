"""The named, detached actors the Ray executor shares between drivers: one agent per node and
one model bound per endpoint. Any driver may be first to ask for one; the rest find it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from evaluator.errors import InfraError
from evaluator.executor._node import NodeAgent, local_versions

NAMESPACE = "evaluator"
RESOURCE = "sandbox"
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


_node_cls: Any = None


def node_agent(node_id: str, capacity: int, pool_size: int, max_idle_s: float,
               pull_limit: int) -> Any:
    """The agent of `node_id`, restarted if it runs other harness code than this driver (its
    records would claim this driver's harness version)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    global _node_cls
    if _node_cls is None:
        _node_cls = _node_class()
    name = f"evaluator-node-{node_id[:16]}"

    def make() -> Any:
        return _node_cls.options(
            name=name, namespace=NAMESPACE, lifetime="detached", get_if_exists=True,
            num_cpus=0, resources={RESOURCE: capacity}, max_concurrency=capacity,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(capacity, pool_size, max_idle_s, pull_limit)

    def same_code(handle: Any) -> bool:
        return bool(ray.get(handle.describe.remote([]), timeout=120)["versions"]
                    == local_versions())

    return _get_or_make(name, make, same_code)


def cluster_bound(endpoint: str, limit: int) -> Any:
    """The semaphore bounding requests in flight to one endpoint, on the head node."""
    import ray

    from evaluator.executor._bound import ClusterBound

    name = f"evaluator-model-{endpoint}-{limit}"

    def make() -> Any:
        return ray.remote(ClusterBound).options(
            name=name, namespace=NAMESPACE, lifetime="detached", get_if_exists=True, num_cpus=0,
            resources={"node:__internal_head__": 0.001}).remote(limit)

    return _get_or_make(name, make, lambda h: ray.get(h.stats.remote(), timeout=60) is not None)
