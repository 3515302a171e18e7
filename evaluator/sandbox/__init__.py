"""Sandboxes: one locked-down, disposable container per agent attempt or grading run.

`Sandboxes` is the seam (what opens them); `open_backend` makes the one the settings name:
`DockerSandboxes` (a Docker engine), `PodmanSandboxes` (podman's service) or
`DaemonlessSandboxes` (bubblewrap, no daemon at all).
"""

from __future__ import annotations

from evaluator.sandbox._backends import BACKENDS, image_engine, open_backend
from evaluator.sandbox._cli import add_commands, enter_user_namespace
from evaluator.sandbox._client import docker_client
from evaluator.sandbox._daemonless import DaemonlessSandbox, DaemonlessSandboxes
from evaluator.sandbox._docker import DockerSandbox
from evaluator.sandbox._factory import DockerSandboxes
from evaluator.sandbox._images import EngineImages
from evaluator.sandbox._leftovers import cleanup_leftovers, managed_labels
from evaluator.sandbox._oci import ImageStore, StoredImage
from evaluator.sandbox._podman import PodmanSandboxes, copy_image
from evaluator.sandbox._podman_host import podman_client, podman_host
from evaluator.sandbox._slots import Slots
from evaluator.sandbox._types import (
    Backend,
    ExecResult,
    Images,
    Restartable,
    Sandbox,
    Sandboxes,
    SandboxLimits,
)

__all__ = [
    "BACKENDS",
    "Backend",
    "DaemonlessSandbox",
    "DaemonlessSandboxes",
    "DockerSandbox",
    "DockerSandboxes",
    "EngineImages",
    "ExecResult",
    "ImageStore",
    "Images",
    "PodmanSandboxes",
    "Restartable",
    "Sandbox",
    "SandboxLimits",
    "Sandboxes",
    "Slots",
    "StoredImage",
    "add_commands",
    "cleanup_leftovers",
    "copy_image",
    "docker_client",
    "enter_user_namespace",
    "image_engine",
    "managed_labels",
    "open_backend",
    "podman_client",
    "podman_host",
]
