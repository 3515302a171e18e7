"""Which executor runs this process's sandbox work: `$EVAL_EXECUTOR` and its knobs."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from evaluator.errors import BadInputError

ENV = "EVAL_EXECUTOR"
# name -> (default, one-line meaning); all whole numbers but max idle. The warm pool's default
# is 2 under Ray and 0 (none) locally, where make demo and its keys stay as they were.
KNOBS: dict[str, tuple[float | None, str]] = {
    "EVAL_WARM_POOL": (None, "warm sandboxes per node (this machine, locally), for queued work "
                             "only (0: none; default 2 on Ray, 0 locally)"),
    "EVAL_WARM_MAX_IDLE_S": (30.0, "a warm sandbox unused this long is closed"),
    "EVAL_RAY_PULLS": (2, "image pulls or loads at once per node"),
    "EVAL_RAY_TRIES": (3, "nodes an attempt may be handed to when its node is lost"),
}
_FRACTIONAL = "EVAL_WARM_MAX_IDLE_S"


def _knob(name: str, default: float | None = None) -> float:
    meaning = KNOBS[name][1]
    raw = os.environ.get(name, "").strip()
    if not raw:
        fallback = KNOBS[name][0]
        fallback = default if fallback is None else fallback
        assert fallback is not None, f"{name} has no default here"
        return float(fallback)
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0 or (name != _FRACTIONAL and value != int(value)):
        raise BadInputError(f"${name} is {raw!r}; it is {meaning}: set a non-negative "
                            f"{'number' if name == _FRACTIONAL else 'whole number'}")
    return value


def executor_from_env(local: Callable[[int, float], Any]) -> Any:
    """`$EVAL_EXECUTOR`: unset or `local` -> `local(warm pool size, max idle s)`;
    `ray://HOST:PORT` (Ray Client) or `ray:HOST:PORT` / `ray:auto` (a driver on a cluster
    node) -> a RayExecutor."""
    value = os.environ.get(ENV, "").strip()
    if value in ("", "local"):
        return local(int(_knob("EVAL_WARM_POOL", 0)), _knob("EVAL_WARM_MAX_IDLE_S"))
    if value.startswith("ray://"):
        address = value
    elif value.startswith("ray:") and len(value) > 4:
        address = value[4:]
    else:
        raise BadInputError(f"${ENV} is {value!r}; set `local` (the default), "
                            "`ray://HOST:PORT` (Ray Client, port 10001 by default) or "
                            "`ray:HOST:PORT` (the GCS address, from a machine in the cluster)")
    from evaluator.executor._ray import RayExecutor

    tries = int(_knob("EVAL_RAY_TRIES"))
    if tries < 1:
        raise BadInputError("$EVAL_RAY_TRIES must be at least 1")
    return RayExecutor(address, tries=tries, pool_size=int(_knob("EVAL_WARM_POOL", 2)),
                       max_idle_s=_knob("EVAL_WARM_MAX_IDLE_S"),
                       pull_limit=max(1, int(_knob("EVAL_RAY_PULLS"))))
