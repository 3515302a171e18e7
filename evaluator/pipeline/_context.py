"""Per-process access to a task set, its lock, the store and the sandboxes.

doit forks workers for `-n N -P process`; Docker clients and SQLite connections must be made in
the process that uses them, so everything here is built lazily and keyed by pid.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import EvalError
from evaluator.lock import Lock, load_locked
from evaluator.pipeline._slots import Slots
from evaluator.store import Store
from evaluator.taskset import TaskSet, load_task_set


def tasks_root() -> Path:
    """`$EVAL_TASKS`, else `tasks`."""
    return Path(os.environ.get("EVAL_TASKS", "tasks"))


def lock_dir() -> Path:
    """`$EVAL_LOCK_DIR`, else `lock`."""
    return Path(os.environ.get("EVAL_LOCK_DIR", "lock"))


def discover_sets() -> list[str]:
    root = tasks_root()
    if not root.is_dir():
        return []
    return sorted(p.parent.name for p in root.glob("*/set.yaml"))


@dataclass
class Loaded:
    """A set as far as it could be loaded: `error` says why the rest is missing."""

    name: str
    task_set: TaskSet | None = None
    lock: Lock | None = None
    error: EvalError | None = None


@functools.cache
def load(name: str, *, need_lock: bool = True) -> Loaded:
    try:
        ts = load_task_set(name, tasks_root())
    except EvalError as exc:
        return Loaded(name, error=exc)
    if not need_lock:
        return Loaded(name, task_set=ts)
    try:
        return Loaded(name, task_set=ts, lock=load_locked(ts, str(lock_dir())))
    except EvalError as exc:
        return Loaded(name, task_set=ts, error=exc)


_per_pid: dict[tuple[int, str], Any] = {}


def _cached(what: str, make: Any) -> Any:
    key = (os.getpid(), what)
    if key not in _per_pid:
        _per_pid[key] = make()
    return _per_pid[key]


def store() -> Store:
    return _cached("store", _open_store)


def _open_store() -> Store:
    opened = Store()
    opened.flush_pending()  # what runs made while the remote was out of reach goes up first
    return opened


def sandbox_limit() -> int:
    """`$EVAL_SANDBOXES` (sandboxes at once for gold grades on this machine), else 4."""
    return int(os.environ.get("EVAL_SANDBOXES", "4"))


def sandbox_slots() -> Slots:
    return _cached("slots", lambda: Slots(store().root / "locks", sandbox_limit()))


def sandboxes() -> Any:
    from evaluator.sandbox import DockerSandboxes

    return _cached("sandboxes", DockerSandboxes)


def executor(limit: int) -> Any:
    """This process's executor (`$EVAL_EXECUTOR`); the local one bounds sandboxes at `limit`
    across the processes sharing the store, and model requests per endpoint likewise."""
    from evaluator.executor import LocalExecutor, executor_from_env

    def local(pool_size: int, max_idle_s: float) -> LocalExecutor:
        from evaluator.executor import WarmPool

        def model_limiter(spec: Any) -> Any:
            return Slots(store().root / "locks", spec.max_in_flight,
                         f"model-{spec.endpoint_key}").acquire

        # The pool of each worker process takes its permits from lock files shared by all, so
        # the warm sandboxes of the machine are bounded, not those of each process.
        pool = WarmPool(pool_size, max_idle_s, permits=Slots(store().root / "locks", pool_size,
                                                             "warm")) if pool_size else None
        return LocalExecutor(sandboxes(), Slots(store().root / "locks", limit).acquire,
                             model_limiter, pool)

    return _cached(f"executor-{limit}", lambda: executor_from_env(local))


def docker() -> Any:
    from evaluator.sandbox import docker_client

    return _cached("docker", docker_client)
