"""Images into podman from a Docker engine: `docker save | podman load`, streamed, which keeps the
image id (the config's digest) that the lock pins, and the Docker engine's tags."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import docker.errors
import requests

from evaluator.errors import BadInputError, InfraError
from evaluator.sandbox.docker import EngineImages, docker_client
from evaluator.sandbox.podman._host import podman_client

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)


def copy_image(image: str, source: Any = None, dest: Any = None) -> str:
    """Copy `image` (an id or `name@sha256:...`) from a Docker engine (`source`, default
    DOCKER_HOST's) into podman (`dest`, default EVAL_PODMAN_HOST's) as `docker save | podman
    load` would, streamed; return its id, which podman checks against the config it loaded."""
    source = source or docker_client()
    dest = dest or podman_client()
    try:
        found = source.images.get(image)
    except docker.errors.ImageNotFound:
        raise BadInputError(f"image {image} is on neither podman nor the Docker engine: run "
                            "`doit lock:<set>` with EVAL_SANDBOX_BACKEND=podman, which builds "
                            "or pulls it into podman") from None
    except _ERRORS as e:
        raise InfraError(f"looking up {image} on the Docker engine: {e}") from e
    image_id = str(found.id)
    if not EngineImages(dest, "podman").has(image_id):
        try:
            # By id alone (a named save keeps only the first of its tags): tagged below.
            for _ in dest.api.load_image(_stream(found.save(named=False)), quiet=True):
                pass
        except _ERRORS as e:
            raise InfraError(f"loading {image} into podman: {e}") from e
        if not EngineImages(dest, "podman").has(image_id):
            raise InfraError(f"podman loaded {image} but holds no image {image_id}: the "
                             "archive's config does not match the id the lock pins")
    for tag in found.tags:  # as the Docker engine names it: tasks and tests name images so
        repo, _, name = tag.rpartition(":")
        try:
            dest.api.tag(image_id, repo, name)
        except _ERRORS as e:
            raise InfraError(f"tagging {image_id[:19]} as {tag} in podman: {e}") from e
    return image_id


def _stream(chunks: Iterator[bytes]) -> Iterator[bytes]:
    yield from chunks
