"""A container of a Docker-API engine as a sandbox's `Machine`: its commands run through `docker
exec` only, and it is stopped by a kill and its lease's end (`_lease`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any, Protocol

import docker
import docker.errors
import requests

from evaluator.sandbox._stream import RawExec
from evaluator.sandbox.docker._client import sandbox_error
from evaluator.sandbox.docker._stream import run_exec

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)


class _Closable(Protocol):
    def close(self) -> None: ...


class ContainerMachine:
    """One created container of `client`'s engine; `lease` (held while the sandbox is wanted)
    ends with the kill."""

    def __init__(self, client: docker.DockerClient, container: Any,
                 lease: _Closable | None = None) -> None:
        self.client = client
        self.container = container
        self.id = str(container.id)
        self.short_id = str(container.short_id)
        self._lease = lease

    def run(self, argv: list[str], *, deadline: float, limit: int, user: str, workdir: str,
            env: dict[str, str] | None, stdin: Iterable[bytes] | None) -> RawExec:
        try:
            return run_exec(self.client.api, self.id, argv, deadline=deadline, limit=limit,
                            user=user, workdir=workdir, env=env, stdin=stdin)
        except (*_ERRORS, OSError) as e:
            raise sandbox_error(f"exec in sandbox {self.short_id}", e) from e

    def kill(self) -> None:
        try:
            self.container.kill()
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as e:
            # 409 (podman: 500, "container state improper"): not running, what a kill wants
            if not e.is_client_error() and not _not_running(e):
                raise sandbox_error(f"stopping sandbox {self.short_id}", e) from e
        except _ERRORS as e:
            raise sandbox_error(f"stopping sandbox {self.short_id}", e) from e
        finally:
            if self._lease is not None:
                self._lease.close()  # after the kill: its end alone would also stop PID 1

    def remove(self) -> None:
        with contextlib.suppress(docker.errors.NotFound):
            self.container.remove(force=True)

    def layer_bytes(self) -> int | None:
        """What the container's own writable layer holds; None while the engine is busy."""
        try:
            found = self.client.api.containers(all=True, size=True, filters={"id": self.id})
        except _ERRORS:
            return None
        return int(found[0].get("SizeRw") or 0) if found else None


def _not_running(error: docker.errors.APIError) -> bool:
    return "state improper" in str(error.explanation or error)
