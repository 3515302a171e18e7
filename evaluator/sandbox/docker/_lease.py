"""A sandbox's lease on its harness: it ends by itself once the process that opened it is gone.

PID 1's child is `cat` reading the container's stdin, under `timeout` at the sandbox's own
deadline. The container is made with stdin open and closed after the first attach (Docker's
`StdinOnce`), and the harness attaches to that stdin before it starts the container and holds
the connection for the sandbox's life. Whatever ends the harness (SIGKILL, an OOM kill, a lost
Ray node agent), its kernel closes the connection, the engine closes the container's stdin,
`cat` reads end of file and the container exits: in well under a second, on this engine or a
remote one, whoever else is left to notice. A later run's leftover cleanup only removes what
already stopped.

Nothing in the sandbox can extend it: the other end of that stdin is a pipe the engine holds
outside the container; `timeout` and `cat` run as the keeper uid, so the sandbox user (root
included, with no capabilities) can neither signal them nor open their file descriptors.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

import docker.errors
import requests

from evaluator.errors import SandboxError


def keeper_command(lifetime_s: float) -> list[str]:
    """PID 1's program: wait for the lease to end, at most `lifetime_s` seconds."""
    return ["timeout", "-s", "KILL", str(int(lifetime_s)), "cat"]


# Container options the lease needs: stdin open, and closed when the attached client leaves.
CONTAINER_OPTIONS: dict[str, Any] = {"stdin_open": True, "detach": False}


class Lease:
    """The harness's end of one sandbox's stdin; open while the harness wants the sandbox."""

    def __init__(self, client: Any, container_id: str) -> None:
        try:
            self._io = client.api.attach_socket(container_id, params={"stdin": 1, "stream": 1})
        except (docker.errors.DockerException, requests.RequestException, OSError) as e:
            raise SandboxError(f"attaching to the sandbox's stdin (its lease): {e}") from e

    def close(self) -> None:
        """Give the lease up (the container exits if it still runs); safe to call repeatedly."""
        raw = getattr(self._io, "_sock", self._io)
        # shutdown, not just close: the HTTP response keeps another reference to the socket.
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: closed already
            raw.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._io.close()
        response = getattr(self._io, "_response", None)
        if response is not None:
            with contextlib.suppress(Exception):
                response.close()
