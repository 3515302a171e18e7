"""Sandboxes: one locked-down, disposable container per agent attempt or grading run."""

from __future__ import annotations

from evaluator.sandbox._client import docker_client
from evaluator.sandbox._docker import DockerSandbox
from evaluator.sandbox._factory import DockerSandboxes
from evaluator.sandbox._leftovers import cleanup_leftovers
from evaluator.sandbox._types import ExecResult, Sandbox, SandboxLimits

__all__ = [
    "DockerSandbox",
    "DockerSandboxes",
    "ExecResult",
    "Sandbox",
    "SandboxLimits",
    "cleanup_leftovers",
    "docker_client",
]
