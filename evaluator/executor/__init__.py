"""Executors: where attempts' and grades' sandbox work runs (this machine, or a Ray cluster).

`EVAL_EXECUTOR` picks one (see `executor_from_env`); the Ray side lives in `_ray` (driver) and
`_node` (each node) and imports Ray only when chosen.
"""

from evaluator.executor._choose import ENV, executor_from_env
from evaluator.executor._local import LocalExecutor
from evaluator.executor._pool import WarmPool
from evaluator.executor._protocol import AttemptWork, Executor, ModelSpec, WorkLost
from evaluator.executor._queue import QueueMarks, waiting_since

__all__ = [
    "ENV",
    "AttemptWork",
    "Executor",
    "LocalExecutor",
    "ModelSpec",
    "QueueMarks",
    "WarmPool",
    "WorkLost",
    "executor_from_env",
    "waiting_since",
]
