"""What a sandbox is, independent of the engine that provides it."""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from evaluator.images import TASK_USER, TASK_WORKDIR


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


@runtime_checkable
class Restartable(Protocol):
    """A sandbox a warm pool may open ahead of its use: its deadline restarts at the use."""

    def restart_clock(self, limits: SandboxLimits) -> None: ...


@dataclass(frozen=True)
class Backend:
    """Which backend ran a sandbox, as attempt and grade records keep it. In no key: backends
    whose outcomes agree (benchmarks/ and the tests compare them) give the same keys."""

    name: str  # docker, podman, ...
    version: str  # the engine's own version ("20.10.24", "4.3.1")
    disk: str = ""  # the disk mode in force (see `_disk`), once a sandbox was opened
    detail: str = ""  # what else tells two hosts of one backend apart (rootless, runtime)

    def to_record(self) -> dict[str, str]:
        return {k: v for k, v in vars(self).items() if v}


class Images(Protocol):
    """The images a backend's sandboxes start from, as a Ray node moves them between nodes."""

    def has(self, image: str) -> bool:
        """Whether `image` (an id or `name@sha256:...`) is here, ready to open."""
        ...

    def pull(self, image: str) -> None:
        """Get `name@sha256:...` from its registry, by digest; InfraError when it cannot."""
        ...

    def export(self, image: str) -> bytes:
        """`image` as a docker-archive (what `docker save` writes), for a node that lacks it."""
        ...

    def load(self, archive: bytes) -> None:
        """Take in a docker-archive made by `export` on another node."""
        ...


class Sandboxes(Protocol):
    """Opens sandboxes of one backend. The pipeline, graders, attempts and executors are given
    one through their constructors and never name an engine; `evaluator.sandbox.open_backend`
    makes the one `settings.sandbox_backend` names."""

    def open(
        self,
        image: str,
        limits: SandboxLimits,
        *,
        user: str = TASK_USER,
        workdir: str = TASK_WORKDIR,
        purpose: str = "",
        base_commit: str | None = None,
    ) -> Sandbox:
        """A fresh sandbox from the pinned `image` (never pulled here); with `base_commit`,
        its seal (`evaluator.images.sealed_image`)."""
        ...

    def backend(self) -> Backend:
        """Name and version of what opens the sandboxes, for the records."""
        ...

    def alive(self) -> bool:
        """Whether the engine (or tooling) behind the sandboxes still answers."""
        ...

    def cleanup_leftovers(self) -> int:
        """Remove sandboxes of dead or overdue owners; how many were removed."""
        ...

    @property
    def images(self) -> Images: ...
