"""The podman backend's `Sandboxes`: the docker backend's opener on podman's service, told what
podman does its own way by `PodmanEngine` (see `_engine`)."""

from __future__ import annotations

import docker

from evaluator.images import TASK_USER, TASK_WORKDIR
from evaluator.sandbox._exec import ExecSandbox
from evaluator.sandbox._types import Backend, SandboxLimits
from evaluator.sandbox.docker import DockerSandboxes, EngineImages
from evaluator.sandbox.podman._engine import PodmanEngine


class PodmanSandboxes:
    """Opens sandboxes through podman's service at `client` (default: EVAL_PODMAN_HOST's)."""

    name = "podman"

    def __init__(self, client: docker.DockerClient | None = None) -> None:
        self.engine = PodmanEngine(client)
        self._opener = DockerSandboxes(engine=self.engine)

    @property
    def client(self) -> docker.DockerClient:
        return self.engine.client

    @property
    def images(self) -> EngineImages:
        return self.engine.images

    def backend(self) -> Backend:
        return self._opener.backend()

    def alive(self) -> bool:
        return self._opener.alive()

    def cleanup_leftovers(self) -> int:
        return self._opener.cleanup_leftovers()

    def open(self, image: str, limits: SandboxLimits, *, user: str = TASK_USER,
             workdir: str = TASK_WORKDIR, purpose: str = "",
             base_commit: str | None = None) -> ExecSandbox:
        self.engine.host()  # says once, before anything else, what kind of podman this is
        return self._opener.open(image, limits, user=user, workdir=workdir, purpose=purpose,
                                 base_commit=base_commit)
