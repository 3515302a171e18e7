"""Choosing the backend that opens sandboxes: `settings.sandbox_backend` ($EVAL_SANDBOX_BACKEND).

Every backend gives the same sandbox (no network, read-only root, capped disk, CPU, memory,
processes and time, every process gone at close) behind the `Sandboxes` seam, so keys do not
name it; the records do (`Sandboxes.backend`), and the tests and benchmarks/ compare outcomes
across backends. Add one as a subpackage (its `Sandboxes`, usually an `ExecSandbox` over a
`Machine` of its own) and one more entry of `_MAKERS` (and of the setting's choices).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.errors import BadInputError, InfraError
from evaluator.sandbox._types import Sandboxes
from evaluator.sandbox.daemonless import DaemonlessSandboxes
from evaluator.sandbox.docker import DockerSandboxes, docker_client
from evaluator.sandbox.podman import PodmanSandboxes, podman_client
from evaluator.settings import Settings, settings

ENV = Settings.sandbox_backend.env


def _docker() -> Sandboxes:
    return DockerSandboxes()


def _podman() -> Sandboxes:
    return PodmanSandboxes()


def _daemonless() -> Sandboxes:
    return DaemonlessSandboxes()


_MAKERS: dict[str, Callable[[], Sandboxes]] = {"docker": _docker, "podman": _podman,
                                               "daemonless": _daemonless}
BACKENDS = tuple(_MAKERS)


def open_backend(name: str | None = None) -> Sandboxes:
    """The `Sandboxes` of backend `name` (default: the setting's); nothing is started until the
    first sandbox is opened."""
    chosen = name or settings.sandbox_backend
    maker = _MAKERS.get(chosen)
    if maker is None:
        raise BadInputError(f"sandbox backend {chosen!r} is not one of {', '.join(BACKENDS)}; "
                            f"fix {ENV}")
    return maker()


def image_engine(name: str | None = None) -> Any:
    """The Docker-API engine where `doit lock` and `doit images` build, pull and pin images:
    DOCKER_HOST's. On the podman backend with no Docker engine answering (a host without a
    Docker daemon), podman's own: the harness writes its images itself, so they get the same
    ids, and the lock the same pins, on either."""
    chosen = name or settings.sandbox_backend
    try:
        return docker_client()
    except InfraError:
        if chosen != "podman":
            raise
    return podman_client()
