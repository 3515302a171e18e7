"""Per-process access to a task set, its lock, its eval plan, the store and the sandboxes.

doit forks workers for `-n N -P process`; Docker clients and SQLite connections must be made in
the process that uses them, so everything here is built lazily and keyed by pid.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.attempts import EvalPlan, EvalSpec, load_eval, plan_eval
from evaluator.errors import BadInputError, EvalError
from evaluator.executor import LocalExecutor, WarmPool, executor_from_env
from evaluator.lock import Lock, load_locked
from evaluator.sandbox import Slots, image_engine, open_backend
from evaluator.settings import settings
from evaluator.store import Store
from evaluator.taskset import TaskSet, load_task_set


def tasks_root() -> Path:
    """`settings.tasks_root` (`$EVAL_TASKS`, else `tasks`)."""
    return settings.tasks_root


def lock_dir() -> Path:
    """`settings.lock_dir` (`$EVAL_LOCK_DIR`, else `lock`)."""
    return settings.lock_dir


def discover_sets() -> list[str]:
    root = tasks_root()
    if not root.is_dir():
        return []
    return sorted(p.parent.name for p in root.glob("*/set.yaml"))


def asked(basename: str, known: Collection[str] = ()) -> list[str]:
    """Set names the command line asks `basename:` for that `known` lacks: a misnamed or empty
    set folder (or a set without an eval config) gets a target that says what it expected,
    instead of doit's bare `Invalid parameter`."""
    names = {arg.partition(":")[2] for arg in sys.argv[1:] if arg.startswith(f"{basename}:")}
    return sorted(n for n in names if n and "/" not in n and n not in known)


def named(basenames: Collection[str]) -> set[str]:
    """The targets the command line names whose basename is one of `basenames` (`eval:demo`,
    `attempt:demo/a/t/0`, or a bare `eval`): a command naming none will run none of them."""
    return {arg for arg in sys.argv[1:]
            if not arg.startswith("-") and arg.partition(":")[0] in basenames}


@dataclass
class Loaded:
    """A set as far as it could be loaded: `error` says why the rest is missing."""

    name: str
    task_set: TaskSet | None = None
    lock: Lock | None = None
    error: EvalError | None = None


def load(name: str, *, need_lock: bool = True) -> Loaded:
    """The set and its lock from the task and lock folders in force (cached per folder pair);
    whatever goes wrong is this set's error, never every command's."""
    return _load(name, need_lock, tasks_root(), lock_dir())


@functools.cache
def _load(name: str, need_lock: bool, tasks: Path, locks: Path) -> Loaded:
    try:
        ts = load_task_set(name, tasks)
    except Exception as exc:
        return Loaded(name, error=_as_eval_error(exc, f"task set {name!r}"))
    if not need_lock:
        return Loaded(name, task_set=ts)
    try:
        return Loaded(name, task_set=ts, lock=load_locked(ts, str(locks)))
    except Exception as exc:
        return Loaded(name, task_set=ts, error=_as_eval_error(exc, f"the lock of {name!r}"))


@functools.cache
def eval_plan(name: str) -> EvalPlan:
    """The eval plan of set `name` in this process (evals/<name>.yaml with the run overrides);
    raises the set's or the eval config's error."""
    loaded = load(name)
    if loaded.error is not None:
        raise loaded.error
    assert loaded.task_set is not None and loaded.lock is not None
    spec = _run_overrides(load_eval(name, settings.evals_root))
    # An agent whose model cannot be priced (it would show as $0) is refused alone, as are
    # agents that cannot load or get their isolation (`plan.refused`): the others run.
    return plan_eval(loaded.task_set, loaded.lock, spec, store(), settings.agents_root)


def _run_overrides(spec: EvalSpec) -> EvalSpec:
    """`spec` with `settings.samples` ($EVAL_SAMPLES) and `settings.only_agents` applied: the
    HTTP API's knob. A run it schedules is one agent at a chosen number of samples and reaches
    this process only through the environment, so the API and a CLI user run the same targets
    and land the same records; both apply to every set this invocation plans."""
    update: dict[str, Any] = {}
    if settings.samples is not None:
        update["samples"] = settings.samples
    if settings.only_agents:
        update["agents"] = list(settings.only_agents)
    return spec.model_copy(update=update) if update else spec


def _as_eval_error(exc: Exception, what: str) -> EvalError:
    if isinstance(exc, EvalError):
        return exc
    return BadInputError(f"{what} could not be read: {type(exc).__name__}: {exc}")


_per_pid: dict[tuple[int, str], Any] = {}


def _cached(what: str, make: Any) -> Any:
    key = (os.getpid(), what)
    if key not in _per_pid:
        _per_pid[key] = make()
    return _per_pid[key]


def store() -> Store:
    """The store in force, one per process and root (a command's --store may name another)."""
    return _cached(f"store:{settings.store}", _open_store)


def _open_store() -> Store:
    opened = Store()
    opened.flush_pending()  # what runs made while the remote was out of reach goes up first
    return opened


def sandbox_limit() -> int:
    """`settings.sandboxes`: sandboxes at once for gold grades on this machine."""
    return settings.sandboxes


def sandbox_slots() -> Slots:
    return _cached("slots", lambda: Slots(store().root / "locks", sandbox_limit()))


def sandboxes() -> Any:
    """This process's `Sandboxes`: the backend `settings.sandbox_backend` names."""
    return _cached("sandboxes", open_backend)


def executor(limit: int) -> Any:
    """This process's executor (`$EVAL_EXECUTOR`); the local one bounds sandboxes at `limit`
    across the processes sharing the store, and model requests per endpoint likewise."""
    def local(pool_size: int, max_idle_s: float) -> LocalExecutor:
        def model_limiter(spec: Any) -> Any:
            return Slots(store().root / "locks", spec.max_in_flight,
                         f"model-{spec.endpoint_key}").acquire

        # The pool of each worker process takes its permits from lock files shared by all, so
        # the warm sandboxes of the machine are bounded, not those of each process.
        pool = WarmPool(pool_size, max_idle_s, sandboxes=sandboxes(),
                        permits=Slots(store().root / "locks", pool_size, "warm")
                        ) if pool_size else None
        return LocalExecutor(sandboxes(), Slots(store().root / "locks", limit).acquire,
                             model_limiter, pool)

    return _cached(f"executor-{limit}", lambda: executor_from_env(local))


def docker() -> Any:
    """The engine images are built, pulled and pinned on (`evaluator.sandbox.image_engine`)."""
    return _cached("docker", image_engine)
