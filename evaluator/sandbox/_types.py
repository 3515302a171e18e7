"""What a sandbox is, independent of the engine that provides it."""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self, runtime_checkable


@dataclass(frozen=True)
class SandboxLimits:
    """Resource caps of one sandbox; part of a target's key, so keep them in the task set."""

    cpus: float = 1.0
    memory_mb: int = 1024
    pids: int = 256
    # Size of each writable tmpfs (workdir, /tmp, home); tmpfs pages also count as memory.
    disk_mb: int = 512
    exec_timeout_s: float = 120
    sandbox_timeout_s: float = 1800
    output_limit_bytes: int = 100_000

    def __post_init__(self) -> None:
        for name in (
            "cpus",
            "memory_mb",
            "pids",
            "disk_mb",
            "exec_timeout_s",
            "sandbox_timeout_s",
            "output_limit_bytes",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(
                    f"SandboxLimits.{name} must be positive, got {getattr(self, name)}"
                )


@dataclass(frozen=True)
class ExecResult:
    """The outcome of one command; `output` is stdout and stderr interleaved, head and tail kept."""

    exit_code: int
    output: str
    timed_out: bool
    truncated: bool
    duration_s: float


@runtime_checkable
class Sandbox(Protocol):
    """An isolated, disposable machine to run an agent's or a grader's commands in."""

    def exec(
        self,
        cmd: str,
        *,
        timeout_s: float | None = None,
        workdir: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
    ) -> ExecResult: ...

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None: ...

    def read_file(self, path: str, max_bytes: int = ...) -> bytes: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...
