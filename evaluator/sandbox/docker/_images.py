"""A Docker-API engine's images (Docker's, or podman's through its Docker-compatible service),
as a Ray node moves them: held, pulled from their registry by digest, saved and loaded."""

from __future__ import annotations

from typing import Any

import docker.errors
import requests

from evaluator.errors import InfraError

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)


class EngineImages:
    """`Images` of the engine a Docker SDK client talks to (see `_types.Images`)."""

    def __init__(self, client: Any, engine: str = "Docker") -> None:
        self._client = client
        self._engine = engine

    def has(self, image: str) -> bool:
        try:
            self._client.images.get(image)
            return True
        except docker.errors.ImageNotFound:
            return False
        except _ERRORS as e:
            raise InfraError(f"asking the {self._engine} engine for {image}: {e}") from e

    def pull(self, image: str) -> None:
        try:
            self._client.images.pull(image)
        except _ERRORS as e:
            raise InfraError(f"cannot pull {image} into the {self._engine} engine: {e}") from e

    def export(self, image: str) -> bytes:
        try:
            return b"".join(self._client.images.get(image).save(named=True))
        except _ERRORS as e:
            raise InfraError(f"saving {image} from the {self._engine} engine: {e}") from e

    def load(self, archive: bytes) -> None:
        try:
            self._client.images.load(archive)
        except _ERRORS as e:
            raise InfraError(f"loading an image into the {self._engine} engine: {e}") from e
