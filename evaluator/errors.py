"""Errors typed by cause, so callers can tell whose fault a failure is and what to do next.

- `BadInputError`: the user's files or arguments are wrong; the message names the file, field or
  value and how to fix it. Nothing runs.
- `InfraError`: the harness or its environment failed (Docker, the model endpoint, the disk). It is
  never an agent failure: the target is retried on the next run.
  - `SandboxError`: a sandbox could not be created, used or removed.
  - `DiskFullError`: a disk the harness writes (the store's, the lock's) is out of space.
- `AgentError`: the agent under test misbehaved in a way that ends its attempt.
"""

from __future__ import annotations


class EvalError(Exception):
    """Base of every error the harness raises on purpose."""


class BadInputError(EvalError):
    """A user-supplied file, field or value is invalid."""


class StaleLockError(BadInputError):
    """The lock is missing, stale, or leaves an input unpinned; `problems` lists each input."""

    def __init__(self, message: str, problems: list[str]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{message}\n{lines}" if problems else message)


class InfraError(EvalError):
    """The environment failed (Docker daemon, model endpoint, disk); retry, never an agent fault."""


class SandboxError(InfraError):
    """A sandbox could not be created, used or removed."""


class DiskFullError(InfraError):
    """No space left where the harness writes; the message names where and how much it needed."""


class AgentError(EvalError):
    """The agent under test ended its attempt abnormally (format errors, limits)."""


__all__ = [
    "AgentError",
    "BadInputError",
    "DiskFullError",
    "EvalError",
    "InfraError",
    "SandboxError",
    "StaleLockError",
]
