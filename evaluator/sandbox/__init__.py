"""Sandboxes: one locked-down, disposable machine per agent attempt or grading run.

`Sandboxes` is the seam (what opens them); `open_backend` makes the one the settings name. One
subpackage per backend: `docker` (containers of a Docker engine), `podman` (podman's service,
through the docker backend's opener and an `Engine` of its own) and `daemonless` (bubblewrap,
no daemon at all). Each backend's sandbox is the one `ExecSandbox` over a `Machine` of its own;
what they share (the exec wrapper, the seccomp policy, labels, layers, rlimits, memory counting)
lives beside them in this package.
"""

from __future__ import annotations

from evaluator.sandbox._backends import BACKENDS, image_engine, open_backend
from evaluator.sandbox._cli import add_commands
from evaluator.sandbox._exec import ExecSandbox, Machine
from evaluator.sandbox._labels import managed_labels
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
from evaluator.sandbox.daemonless import (
    DaemonlessSandboxes,
    ImageStore,
    StoredImage,
    enter_user_namespace,
)
from evaluator.sandbox.docker import (
    DockerSandboxes,
    EngineImages,
    cleanup_leftovers,
    docker_client,
)
from evaluator.sandbox.podman import PodmanSandboxes, copy_image, podman_client, podman_host

# The sandbox every backend gives, by the names it had when each backend had a class of its own.
DockerSandbox = ExecSandbox
DaemonlessSandbox = ExecSandbox

__all__ = [
    "BACKENDS",
    "Backend",
    "DaemonlessSandbox",
    "DaemonlessSandboxes",
    "DockerSandbox",
    "DockerSandboxes",
    "EngineImages",
    "ExecResult",
    "ExecSandbox",
    "ImageStore",
    "Images",
    "Machine",
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
