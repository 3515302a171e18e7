"""What runs on each Ray node: one agent per node and sandbox backend it has.

The agent (a threaded Ray actor pinned to its node, holding the node's `sandbox-<backend>`
resource, or `sandbox` for Docker on a node that names no backend: see `_actors`) runs
up to `capacity` attempts and grades at once, keeps the warm pool, and gets images: already
held, pulled from their registry (one pull per image at a time, at most `pull_limit` at once),
or loaded from a node that holds them (a docker-archive saved there, loaded here: see
`evaluator.sandbox.Images`). It writes nothing to the store: an attempt's record and blobs go
back to the driver, which stores them.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

from evaluator.attempts import AttemptRun, harness_environment, run_attempt
from evaluator.errors import InfraError
from evaluator.executor._bound import cluster_limiter
from evaluator.executor._pool import WarmPool
from evaluator.executor._protocol import AttemptWork, WorkLost
from evaluator.grading import DockerGrader, GradeOutcome, GradeSpec
from evaluator.hashing import hash_json
from evaluator.sandbox import SandboxLimits, open_backend
from evaluator.settings import settings
from evaluator.store import Store
from evaluator.version import harness_version, source_hash

# Ray is an optional extra (`make venv-ray`): each `import ray` sits in the function that needs
# it, so the local executor never loads it.

# What a node must share with the driver for its attempts and grades to be the ones their keys
# name: the contract versions and the distributions the attempt's code path imports.
VERSIONED = ("attempt", "grader", "simulated", "environment")


def local_versions() -> dict[str, str]:
    """The outcome-relevant versions (`VERSIONED`) and the exact build (`source`): a node agent
    of another build is replaced, work from a driver of other versions refused."""
    return {**{c: harness_version(c) for c in ("attempt", "grader", "simulated")},
            "environment": hash_json(harness_environment())[:16], "source": source_hash()}


class NodeAgent:
    def __init__(self, capacity: int, pool_size: int = 0, max_idle_s: float = 30.0,
                 pull_limit: int = 2, backend: str | None = None) -> None:
        self.capacity = capacity
        self.backend = backend or settings.sandbox_backend
        self.pool = WarmPool(pool_size, max_idle_s, sandboxes=open_backend(self.backend))
        self._pulls = threading.BoundedSemaphore(pull_limit)
        self._image_locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._running = 0
        self._started: set[str] = set()
        self._announced: dict[str, float] = {}  # ticket -> when queued here, until it starts
        self.pulled = 0
        self._fetching = 0
        self.fetch_peak = 0  # the most pulls or loads ever at once on this node

    # --- control ----------------------------------------------------------------------------
    def describe(self, images: list[str]) -> dict[str, Any]:
        """Load, capacity and versions, and whether the engine holds each of `images`."""
        import ray

        now = time.time()
        with self._lock:
            running, queued = self._running, len(self._announced)
            oldest = max((now - t for t in self._announced.values()), default=0.0)
        return {"node_id": ray.get_runtime_context().get_node_id(), "capacity": self.capacity,
                "running": running, "queued": queued, "oldest_wait_s": round(oldest, 3),
                "backend": {"name": self.backend}, "engine": self._engine(),
                "ready": self.pool.ready(), "pulled": self.pulled, "fetch_peak": self.fetch_peak,
                "versions": local_versions(),
                "pool": dict(self.pool.stats), "holds": self.holds(images)}

    def withdraw(self, ticket: str) -> None:
        """The driver gave up on a queued ticket."""
        with self._lock:
            self._announced.pop(ticket, None)
        self.pool.forget(ticket)

    def holds(self, images: list[str]) -> list[bool]:
        return [self._has(i) for i in images]

    def expect(self, ticket: str, image: str, limits: SandboxLimits, user: str, workdir: str,
               purpose: str, base_commit: str | None = None) -> int:
        """Queue `ticket` here; returns the free slots there were before it (<= 0: it waits).

        Only work that will wait for a slot is announced to the warm pool: work with a free
        slot starts at once and opens its own sandbox, and a warm one opened beside it would
        be thrown away (a container's start and removal, for nothing, on the node's CPUs)."""
        with self._lock:
            free = self.capacity - self._running - len(self._announced)
            self._announced[ticket] = time.time()
        if free <= 0:
            self.pool.expect(ticket, image, limits, user=user, workdir=workdir, purpose=purpose,
                             base_commit=base_commit)
        return free

    def started(self, ticket: str) -> bool:
        with self._lock:
            return ticket in self._started

    def export_image(self, image: str) -> bytes:
        """The image as `docker save` writes it, for a node that lacks it."""
        with self._pulls:
            return self.pool.images.export(image)

    # --- sandbox work -----------------------------------------------------------------------
    def run_attempt(self, ticket: str, work: AttemptWork, versions: dict[str, str],
                    bound: Any, lease_s: float, holders: list[Any]
                    ) -> tuple[AttemptRun, dict[str, bytes]]:
        import ray


        self._begin(ticket, versions)
        scratch = tempfile.mkdtemp(prefix="evaluator-scratch-")
        try:
            self.fetch(work.image, holders)
            if not work.agent.dir.is_dir():
                raise InfraError(f"agent folder {work.agent.dir} is missing on node "
                                 f"{ray.get_runtime_context().get_node_id()[:12]}; every node "
                                 "must run the same checkout at the same path")
            store = Store(scratch, remote=None)
            model = work.model.client(cluster_limiter(
                bound, ray.get_runtime_context().get_node_id(), lease_s))
            self.pool.bind(ticket)
            with self._engine_watch():
                rec = run_attempt(store=store, sandboxes=self.pool, model=model, agent=work.agent,
                                  task=work.task, pin=work.pin, limits=work.limits,
                                  key=work.key, seed=work.seed,
                                  sandbox_usd_per_hour=work.sandbox_usd_per_hour,
                                  price=work.model.price)
            blobs = {}
            for path in (store.root / "blobs").rglob("*"):
                if path.is_file():
                    blobs[path.parent.name + path.name] = path.read_bytes()
            return rec, blobs
        finally:
            self.pool.bind(None)
            self._end(ticket)
            shutil.rmtree(scratch, ignore_errors=True)

    def grade(self, ticket: str, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes],
              versions: dict[str, str], holders: list[Any]) -> GradeOutcome:
        self._begin(ticket, versions)
        try:
            self.fetch(spec.image, holders)
            self.pool.bind(ticket)
            with self._engine_watch():
                return DockerGrader(self.pool).grade(spec, patch, hidden)
        finally:
            self.pool.bind(None)
            self._end(ticket)

    # --- internals --------------------------------------------------------------------------
    def _begin(self, ticket: str, versions: dict[str, str]) -> None:
        mine = local_versions()
        differ = sorted(c for c in VERSIONED if versions.get(c) != mine[c])
        if differ:
            raise InfraError(f"this node runs other harness behaviour than the driver "
                             f"({', '.join(differ)} differ); start every node from the same "
                             "checkout and requirements.lock as the machine running doit")
        with self._lock:
            self._running += 1
            self._started.add(ticket)
            self._announced.pop(ticket, None)

    def _end(self, ticket: str) -> None:
        self.pool.forget(ticket)
        with self._lock:
            self._running -= 1
            self._started.discard(ticket)

    @contextlib.contextmanager
    def _engine_watch(self) -> Iterator[None]:
        """An infra error while this node's engine no longer answers is the node's loss, not
        the work's: the driver hands the work to another node."""
        try:
            yield
        except InfraError as e:
            if not self.pool.alive():
                raise WorkLost(f"the {self.backend} sandbox engine of this node "
                               f"({self._engine()}) stopped: {e}") from e
            raise

    def _engine(self) -> str:
        """Where this node's backend answers, as its settings say."""
        if self.backend == "docker":
            return settings.docker_host or "default"
        return settings.podman_host if self.backend == "podman" else self.backend

    def _has(self, image: str) -> bool:
        return self.pool.images.has(image)

    def fetch(self, image: str, holders: list[Any]) -> bool:
        """Make the engine hold `image`; True if this call pulled or loaded it."""
        if self._has(image):
            return False
        with self._lock:
            lock = self._image_locks.setdefault(image, threading.Lock())
        with lock:  # one pull or load per image at a time; the others wait and find it
            if self._has(image):
                return False
            with self._pulls:
                with self._lock:
                    self._fetching += 1
                    self.fetch_peak = max(self.fetch_peak, self._fetching)
                try:
                    self._fetch(image, holders)
                finally:
                    with self._lock:
                        self._fetching -= 1
            with self._lock:
                self.pulled += 1
            return True

    def _fetch(self, image: str, holders: list[Any]) -> None:
        import ray

        name = image.split("@", 1)[0]
        if "@sha256:" in image and "/" in name and "." in name.split("/", 1)[0]:
            try:
                self.pool.images.pull(image)
                return
            except InfraError as e:
                if not holders:
                    raise InfraError(f"cannot pull {image} on this node: {e}") from e
        for holder in holders:
            try:
                data = ray.get(holder.export_image.remote(image))
            except Exception:  # noqa: BLE001 - a lost or lacking holder: try the next one
                continue
            self.pool.images.load(data)
            if self._has(image):
                return
        raise InfraError(f"image {image} is on no registry this node can reach and no other node "
                         "could give it; load it on a node (docker load) or push it to a registry")
