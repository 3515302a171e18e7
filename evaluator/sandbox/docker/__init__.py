"""The Docker backend: each sandbox one locked-down container of a Docker-API engine, used
through `docker exec` only (`ContainerMachine`, the `Machine` of `evaluator.sandbox._exec`).

`DockerSandboxes` opens them; what an engine does its own way is its `Engine`: Docker's own
(`DockerEngine`), or podman's service (`evaluator.sandbox.podman`), which shares the rest through
this seam.
"""

from __future__ import annotations

from evaluator.sandbox.docker._client import docker_client, sandbox_error
from evaluator.sandbox.docker._container import ContainerMachine
from evaluator.sandbox.docker._disk import ENV as DISK_ENV
from evaluator.sandbox.docker._disk import DiskMode
from evaluator.sandbox.docker._engine import Container, DockerEngine, Engine, Mounts, apart
from evaluator.sandbox.docker._images import EngineImages
from evaluator.sandbox.docker._leftovers import cleanup_leftovers
from evaluator.sandbox.docker._overlay import Overlay
from evaluator.sandbox.docker._sandboxes import DockerSandboxes
from evaluator.sandbox.docker._stream import run_exec

__all__ = [
    "DISK_ENV",
    "Container",
    "ContainerMachine",
    "DiskMode",
    "DockerEngine",
    "DockerSandboxes",
    "Engine",
    "EngineImages",
    "Mounts",
    "Overlay",
    "apart",
    "cleanup_leftovers",
    "docker_client",
    "run_exec",
    "sandbox_error",
]
