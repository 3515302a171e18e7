"""What a Docker-API engine does its own way when `DockerSandboxes` opens a sandbox there: the
seam between the opener and an engine. `DockerEngine` is Docker's own; podman's service answers
otherwise in places (`evaluator.sandbox.podman.PodmanEngine`, which keeps a `DockerEngine` for
what it does alike).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any, Protocol

import docker
import docker.errors
import requests

from evaluator.errors import BadInputError, SandboxError
from evaluator.sandbox import _seccomp
from evaluator.sandbox._accounts import Account
from evaluator.sandbox._layers import used_bytes
from evaluator.sandbox._types import SandboxLimits
from evaluator.sandbox.docker._client import docker_client, sandbox_error
from evaluator.sandbox.docker._container import ContainerMachine
from evaluator.sandbox.docker._disk import DiskMode, disk_mode, layer_size
from evaluator.sandbox.docker._images import EngineImages
from evaluator.sandbox.docker._overlay import Overlay

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
Container = Any  # docker.models.containers.Container, or podman's through the same SDK
Mounts = tuple[dict[str, str], list[docker.types.Mount]]


class Engine(Protocol):
    """One Docker-API engine, as `DockerSandboxes` opens sandboxes there."""

    name: str  # the backend's name in records: docker, podman

    @property
    def client(self) -> docker.DockerClient: ...

    @property
    def images(self) -> EngineImages: ...

    def detail(self) -> str:
        """What else tells two hosts of this engine apart, for the records ("" for none)."""
        ...

    def image(self, ref: str) -> tuple[str, int]:
        """The id and size of the image `ref` here; BadInputError when it is not."""
        ...

    def disk_mode(self, image_id: str) -> DiskMode:
        """How the sandbox's disk is capped (`_disk`)."""
        ...

    def disk_meter(self, mode: DiskMode, workdir_overlay: Overlay | None,
                   machine: ContainerMachine) -> Callable[[], int | None] | None:
        """What measures the sandbox's writes (None: nothing to measure in this mode)."""
        ...

    def create_options(self, mode: DiskMode, image_size: int, limits: SandboxLimits,
                       ) -> dict[str, Any]:
        """The container's caps: CPU, memory and processes, its disk, its system calls."""
        ...

    def writable(self, limits: SandboxLimits, account: Account, workdir: str, copy_up: bool,
                 labels: dict[str, str], volumes: list[str]) -> Mounts:
        """The sandbox's writable places besides an overlay workdir: tmpfs mounts, and more
        mounts whose volumes it appends to `volumes` (removed with the sandbox)."""
        ...

    def check_created(self, container: Container) -> None:
        """Refuse (and remove) a created container that cannot hold the sandbox's limits."""
        ...

    def started(self, container: Container, account: Account, workdir: str, copy_up: bool,
                limits: SandboxLimits) -> None:
        """What the harness does in a started container before anything else runs there."""
        ...

    def prelude(self, mode: DiskMode, limits: SandboxLimits) -> str:
        """Shell each exec runs first, for what the container itself does not set."""
        ...

    def unset(self, image_id: str) -> tuple[str, ...]:
        """Variables the engine adds to every container and each exec removes."""
        ...

    def error(self, action: str, error: Exception) -> SandboxError:
        """A failed engine call as an error that says what to do."""
        ...


class DockerEngine:
    """Docker's engine (DOCKER_HOST's, or `client`'s)."""

    name = "docker"

    def __init__(self, client: docker.DockerClient | None = None) -> None:
        self._client = client

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = docker_client()
        return self._client

    @property
    def images(self) -> EngineImages:
        return EngineImages(self.client)

    def detail(self) -> str:
        return ""

    def image(self, ref: str) -> tuple[str, int]:
        try:
            found = self.client.images.get(ref)
            return str(found.id), int(found.attrs.get("Size") or 0)
        except docker.errors.ImageNotFound as e:
            raise BadInputError(
                f"image {ref} is not present locally and sandbox images are never pulled: run "
                "`doit lock:<set>` for the task set that names it (it builds or loads the image)"
            ) from e
        except docker.errors.APIError as e:
            if e.is_client_error():
                raise BadInputError(f"image reference {ref!r} is not usable: {e}") from e
            raise sandbox_error(f"looking up image {ref}", e) from e
        except _ERRORS as e:
            raise sandbox_error(f"looking up image {ref}", e) from e

    def disk_mode(self, image_id: str) -> DiskMode:
        return disk_mode(self.client, image_id)

    def disk_meter(self, mode: DiskMode, workdir_overlay: Overlay | None,
                   machine: ContainerMachine) -> Callable[[], int | None] | None:
        if mode == "watch":
            return machine.layer_bytes
        if workdir_overlay is not None:
            upper = workdir_overlay.upper
            return lambda: used_bytes(upper)
        return None

    def create_options(self, mode: DiskMode, image_size: int, limits: SandboxLimits,
                       ) -> dict[str, Any]:
        # The engine's default seccomp profile would depend on its version (Docker 20.10
        # allowed io_uring, which 25 refuses): the sandboxes' own policy, inline.
        seccomp = f"seccomp={json.dumps(_seccomp.profile(), separators=(',', ':'))}"
        return {"pids_limit": limits.pids, "mem_limit": f"{limits.memory_mb}m",
                "memswap_limit": f"{limits.memory_mb}m", "nano_cpus": int(limits.cpus * 1e9),
                "security_opt": ["no-new-privileges", seccomp],
                **disk_options(mode, image_size, limits)}

    def writable(self, limits: SandboxLimits, account: Account, workdir: str, copy_up: bool,
                 labels: dict[str, str], volumes: list[str]) -> Mounts:
        return tmpfs_mounts(limits, account, workdir, with_workdir=copy_up), []

    def check_created(self, container: Container) -> None:
        pass  # Docker applies every cap it accepts

    def started(self, container: Container, account: Account, workdir: str, copy_up: bool,
                limits: SandboxLimits) -> None:
        pass  # nothing to do before the sandbox's first command

    def prelude(self, mode: DiskMode, limits: SandboxLimits) -> str:
        return ""

    def unset(self, image_id: str) -> tuple[str, ...]:
        return ()

    def error(self, action: str, error: Exception) -> SandboxError:
        return sandbox_error(action, error)


def disk_options(mode: DiskMode, image_size: int, limits: SandboxLimits) -> dict[str, Any]:
    """The container's root and file-size cap in disk mode `mode` (see `_disk`)."""
    cap = limits.disk_mb << 20
    fsize = [docker.types.Ulimit(name="fsize", soft=cap, hard=cap)]
    if mode == "engine":
        return {"read_only": False, "storage_opt": {"size": layer_size(image_size, limits.disk_mb)}}
    if mode == "watch":
        return {"read_only": False, "ulimits": fsize}
    if mode == "overlay":
        return {"read_only": True, "ulimits": fsize}
    return {"read_only": True}


def tmpfs_mounts(limits: SandboxLimits, account: Account, workdir: str, *,
                 with_workdir: bool) -> dict[str, str]:
    # exec is allowed: agents build and run code in all three places.
    base = f"rw,exec,nosuid,nodev,size={limits.disk_mb}m"
    owned = f"{base},mode=755,uid={account.uid},gid={account.gid}"
    mounts = {"/tmp": f"{base},mode=1777"}
    if with_workdir:
        mounts[workdir] = owned
    home = account.home
    if home and all(apart(home, other) for other in (*mounts, workdir)):
        mounts[home] = owned
    return mounts


def apart(a: str, b: str) -> bool:
    """Whether folders `a` and `b` are neither the same nor one inside the other (nor /)."""
    pa, pb = PurePosixPath(a), PurePosixPath(b)
    return pa != PurePosixPath("/") and not pa.is_relative_to(pb) and not pb.is_relative_to(pa)
