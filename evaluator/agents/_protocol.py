"""The seam between the harness and an agent, and the typed ways an attempt ends.

An external agent is any callable `fn(ctx: AgentContext) -> None` named in agent.yaml as
`module:callable`. It runs commands through `ctx.sandbox`, asks `ctx.model`, calls
`ctx.record_step` after each step, and ends by returning or raising one of the exits below.
The harness then takes the patch from the sandbox (a diff against the base commit).

Limits are the harness's: `ctx.model` and `ctx.sandbox` count every call and refuse past the
step, cost and wall-clock limits by raising StepLimit, CostLimit or WallClockLimit (and
ContextLimit when the endpoint refuses a history too long for the model), and the
record's usage and cost are what passed through `ctx.model`, not what the agent records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaluator.errors import AgentError
from evaluator.model import ModelClient
from evaluator.sandbox import ExecResult


class AttemptEnd(AgentError):
    """Ends an attempt; `exit_reason` is what the record and reports show."""

    exit_reason = "ended"


class Submitted(AttemptEnd):
    """The agent is done. `patch`, when given, is its submission as a diff against the task's
    tree (as mini-swe-agent's SWE-bench runs submit `git diff` output), and is what is graded;
    without it the working tree's difference from the start is."""

    exit_reason = "submitted"

    def __init__(self, message: str = "", *, patch: str | None = None) -> None:
        super().__init__(message)
        self.patch = patch


class StepLimit(AttemptEnd):
    exit_reason = "step_limit"


class WallClockLimit(AttemptEnd):
    exit_reason = "wall_clock_limit"


class CostLimit(AttemptEnd):
    exit_reason = "cost_limit"


class FormatErrors(AttemptEnd):
    exit_reason = "format_errors"


class CpuLimit(AttemptEnd):
    """The scaffold's own process used its CPU seconds (`limits.agent_cpu_s`)."""

    exit_reason = "cpu_limit"


class MemoryLimit(AttemptEnd):
    """The scaffold's own process ran out of its address space (`limits.agent_memory_mb`)."""

    exit_reason = "memory_limit"


class ContextLimit(AttemptEnd):
    """The endpoint refused a call because the conversation outgrew the model's context window:
    the agent's own outcome, like a step limit, never an infrastructure error."""

    exit_reason = "context_length"


class AgentSandbox(Protocol):
    """The sandbox as an agent may use it: commands and files, never its lifetime."""

    def exec(self, cmd: str, *, timeout_s: float | None = None, workdir: str | None = None,
             env: dict[str, str] | None = None, user: str | None = None) -> ExecResult: ...

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None: ...

    def read_file(self, path: str, max_bytes: int = ...) -> bytes: ...


@dataclass
class AgentContext:
    """What an agent gets for one attempt."""

    sandbox: AgentSandbox
    model: ModelClient
    problem_statement: str
    workdir: str
    seed: int
    temperature: float
    max_tokens: int | None
    limits: Any  # evaluator.agents.LimitSpec
    prompts: dict[str, str]
    record_step: Callable[[str, str, dict[str, Any]], None]  # (action, observation, extra)
    settings: dict[str, Any] = field(default_factory=dict)  # agent.yaml `settings`, as written


class AgentFn(Protocol):
    def __call__(self, ctx: AgentContext) -> None: ...
