"""Connecting to the Docker engine, and turning its errors into ones that say what to do."""

from __future__ import annotations

import docker
import docker.errors
import requests

from evaluator.errors import InfraError, SandboxError
from evaluator.settings import Settings, settings

_START_HINT = "is dockerd running? start it with `dockerd --iptables=false &`"


def docker_client() -> docker.DockerClient:
    """A client for the engine named by DOCKER_HOST (default: the local socket), pinged."""
    where = settings.docker_host or Settings.docker_host.describe_default()
    try:
        client = docker.from_env()
        client.ping()
    except (docker.errors.DockerException, requests.RequestException, OSError) as e:
        raise InfraError(f"cannot reach the Docker engine at {where} ({e}); {_START_HINT}") from e
    return client


def sandbox_error(action: str, error: Exception) -> SandboxError:
    """A SandboxError for a failed daemon call, hinting at the likely fix."""
    if isinstance(error, requests.ConnectionError | ConnectionError | FileNotFoundError):
        return SandboxError(f"{action}: lost the Docker engine ({error}); {_START_HINT}")
    if isinstance(error, requests.Timeout):
        return SandboxError(f"{action}: the Docker engine did not answer in time ({error})")
    return SandboxError(
        f"{action}: {error}; if this persists, see the Docker engine's log "
        "(/tmp/dockerd.log when started by .ci/docker-up)"
    )
