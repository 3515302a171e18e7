"""Which executor runs this process's sandbox work: `settings.executor` ($EVAL_EXECUTOR) and its
knobs (`warm_pool`, `warm_max_idle_s`, `ray_pulls`, `ray_tries`, declared in evaluator/settings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.settings import Settings, settings

ENV = Settings.executor.env


def executor_from_env(local: Callable[[int, float], Any]) -> Any:
    """`$EVAL_EXECUTOR`: unset or `local` -> `local(warm pool size, max idle s)`;
    `ray://HOST:PORT` (Ray Client) or `ray:HOST:PORT` / `ray:auto` (a driver on a cluster
    node) -> a RayExecutor. The warm pool's default is 2 under Ray and 0 (none) locally, where
    make demo and its keys stay as they were."""
    value = settings.executor
    pool = settings.warm_pool
    if value == "local":
        return local(pool or 0, settings.warm_max_idle_s)
    address = value if value.startswith("ray://") else value.removeprefix("ray:")
    from evaluator.executor._ray import RayExecutor  # the Ray side loads only when chosen

    return RayExecutor(address, tries=settings.ray_tries, pool_size=2 if pool is None else pool,
                       max_idle_s=settings.warm_max_idle_s, pull_limit=settings.ray_pulls)
