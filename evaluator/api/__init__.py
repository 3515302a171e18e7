"""The HTTP API: schedule evaluation runs, follow them, read leaderboards and comparisons.

    POST /v1/runs            {agent_version, task_set, samples}  -> 202 {id, status, reused}
    GET  /v1/runs/{id}       status, counts (done, running, errors), cost so far, queue age
    GET  /v1/leaderboard?task_set=          the report's leaderboard rows (valid tasks only)
    GET  /v1/compare?task_set=&a=&b=        the paired comparison, or the guard's refusal

A run executes `doit eval:<set>` (one agent, EVAL_ONLY_AGENTS and EVAL_SAMPLES set) in a worker
process the server supervises, over the same store as the command line, so both share one
cache. Runs live in `<store>/api/runs.sqlite` and survive restarts. `python -m evaluator serve`
starts it; see README.md beside this file for curl examples.
"""

from evaluator.api._app import create_app
from evaluator.api._cli import add_commands
from evaluator.api._db import Run, RunDB
from evaluator.api._errors import (
    AgentVersionError,
    NotReadyError,
    RunNotFoundError,
    UnauthorizedError,
    UnknownNameError,
    UnsafeBindError,
)
from evaluator.api._settings import Settings, check_bind, is_loopback

__all__ = [
    "AgentVersionError",
    "NotReadyError",
    "Run",
    "RunDB",
    "RunNotFoundError",
    "Settings",
    "UnauthorizedError",
    "UnknownNameError",
    "UnsafeBindError",
    "add_commands",
    "check_bind",
    "create_app",
    "is_loopback",
]
