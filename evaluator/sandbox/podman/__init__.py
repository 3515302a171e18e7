"""The podman backend: sandboxes through podman's Docker-compatible service, rootful or rootless,
opened by the docker backend's opener with what podman does its own way (`PodmanEngine`).
See docs/podman.md."""

from __future__ import annotations

from evaluator.sandbox.podman._engine import PodmanEngine
from evaluator.sandbox.podman._host import Host, podman_client, podman_host, rootless_limits
from evaluator.sandbox.podman._images import copy_image
from evaluator.sandbox.podman._sandboxes import PodmanSandboxes

__all__ = ["Host", "PodmanEngine", "PodmanSandboxes", "copy_image", "podman_client",
           "podman_host", "rootless_limits"]
