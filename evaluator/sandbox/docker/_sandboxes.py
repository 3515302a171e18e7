"""Opening Docker sandboxes: one locked-down container per use.

The workdir is the image's own files, copy-on-write, and nothing is copied: an overlay over the
image's layers under a read-only root where the engine allows it, else the container's own layer
(see `_disk` for the modes and their caps); `EVAL_SANDBOX_DISK=tmpfs` copies it into a capped
tmpfs under a read-only root instead. PID 1 runs as a uid of its own, so the sandbox user cannot
kill it, and exits as soon as the harness that opened it is gone (its lease, see `_lease`) or at
the sandbox's deadline, whichever comes first.
"""

from __future__ import annotations

import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

import docker
import docker.errors
import requests

from evaluator.errors import BadInputError, SandboxError
from evaluator.images import TASK_USER, TASK_WORKDIR, sealed_image
from evaluator.sandbox import _registry
from evaluator.sandbox._exec import ExecSandbox
from evaluator.sandbox._labels import managed_labels
from evaluator.sandbox._removal import remove_later
from evaluator.sandbox._types import Backend, SandboxLimits
from evaluator.sandbox.docker import _overlay as overlay
from evaluator.sandbox.docker._accounts import resolve_account
from evaluator.sandbox.docker._client import sandbox_error
from evaluator.sandbox.docker._container import ContainerMachine
from evaluator.sandbox.docker._disk import DiskMode
from evaluator.sandbox.docker._engine import DockerEngine, Engine
from evaluator.sandbox.docker._images import EngineImages
from evaluator.sandbox.docker._lease import CONTAINER_OPTIONS as lease_options
from evaluator.sandbox.docker._lease import Lease, keeper_command
from evaluator.sandbox.docker._leftovers import cleanup_leftovers
from evaluator.sandbox.docker._overlay import Overlay

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
# Leftover cleanup must not remove a container its owner is still opening or closing.
_LABEL_MARGIN_S = 60
# PID 1 exits this long after the sandbox's own deadline, even if its harness still holds it.
_ORPHAN_GRACE_S = 5
# PID 1 and its keeper run as this uid (another if the sandbox user has it): nobody in the
# sandbox may signal them, and so `kill -1` after every exec cannot end the sandbox itself.
_KEEPER_UIDS = (65534, 65533)
# A seal of a repository of upstream size takes tens of seconds; leftover cleanup waits longer.
_SEAL_LIFETIME_S = 3600
_cleaned: set[str] = set()  # engines cleaned by this process
_cleaned_lock = threading.Lock()


class DockerSandboxes:
    """Opens sandboxes as containers of a Docker-API engine (the `Sandboxes` of the Docker
    backend, and of podman's through its Docker-compatible service): `engine` says what the
    engine does its own way (default: Docker's, at `client` or DOCKER_HOST). The first open in
    a process removes earlier runs' leftovers."""

    def __init__(self, client: docker.DockerClient | None = None, *,
                 engine: Engine | None = None) -> None:
        self.engine: Engine = engine or DockerEngine(client)
        self.name = self.engine.name
        self._version: str | None = None
        self._disk: DiskMode | None = None

    @property
    def client(self) -> docker.DockerClient:
        return self.engine.client

    @property
    def images(self) -> EngineImages:
        return self.engine.images

    def backend(self) -> Backend:
        if self._version is None:
            try:
                self._version = str(self.client.version().get("Version") or "?")
            except _ERRORS as e:
                raise sandbox_error("asking the Docker engine for its version", e) from e
        return Backend(self.name, self._version, disk=self._disk or "",
                       detail=self.engine.detail())

    def alive(self) -> bool:
        try:
            return bool(self.client.ping())
        except Exception:  # noqa: BLE001 - any failure to answer means the engine is gone
            return False

    def open(
        self,
        image: str,
        limits: SandboxLimits,
        *,
        user: str = TASK_USER,
        workdir: str = TASK_WORKDIR,
        purpose: str = "",
        base_commit: str | None = None,
    ) -> ExecSandbox:
        """Start a sandbox from the local image `image` (an id or `name@sha256:...`); with
        `base_commit`, from its seal (`evaluator.images.sealed_image`): the repository at
        `workdir` shows that commit and its history, nothing after it."""
        if not PurePosixPath(workdir).is_absolute() or PurePosixPath(workdir) == PurePosixPath("/"):
            raise BadInputError(f"workdir {workdir!r} must be an absolute path below /")
        client, engine = self.client, self.engine
        self._cleanup_once()
        image_id, image_size = engine.image(image)
        if base_commit is not None:
            image_id, image_size = engine.image(_sealed(client, image_id, workdir, base_commit))
        mode = self._disk = engine.disk_mode(image_id)
        labels = managed_labels(purpose, limits.sandbox_timeout_s + _LABEL_MARGIN_S)
        workdir_overlay: Overlay | None = None
        volumes: list[str] = []  # more volumes of this sandbox, removed with it
        try:
            account = resolve_account(client, image_id, user, labels, workdir)
            if mode == "overlay" and account.has_workdir:
                workdir_overlay = _open_overlay(client, image_id, workdir, labels)
            copy_up = mode == "tmpfs" or not account.has_workdir or (
                mode == "overlay" and workdir_overlay is None)
            keeper = next(u for u in _KEEPER_UIDS if u != account.uid)
            tmpfs, mounts = engine.writable(limits, account, workdir, copy_up, labels, volumes)
            container = client.containers.create(
                image_id,
                command=keeper_command(limits.sandbox_timeout_s + _ORPHAN_GRACE_S),
                init=True,
                **lease_options,
                user=f"{keeper}:{keeper}",
                working_dir=workdir,
                hostname="sandbox",
                network_mode="none",
                cap_drop=["ALL"],
                tmpfs=tmpfs,
                mounts=_mounts(workdir_overlay, workdir) + mounts,
                labels=labels,
                **engine.create_options(mode, image_size, limits),
            )
            engine.check_created(container)
        except BaseException as e:
            _drop(client, workdir_overlay, volumes)
            if isinstance(e, _ERRORS):
                raise engine.error(f"creating a sandbox from {image}", e) from e
            raise
        try:
            lease = Lease(client, container.id)  # before the start: PID 1 reads it from birth
        except BaseException:
            remove_later(ContainerMachine(client, container),
                         lambda: _drop(client, workdir_overlay, volumes))
            raise
        machine = ContainerMachine(client, container, lease)
        sandbox = ExecSandbox(
            machine, limits, user=user, workdir=workdir,
            on_close=_closer(client, workdir_overlay, volumes),
            disk_used=engine.disk_meter(mode, workdir_overlay, machine),
            prelude=engine.prelude(mode, limits), unset=engine.unset(image_id),
        )
        _registry.register(sandbox)
        try:
            _start(sandbox, container, workdir, copy=copy_up and account.has_workdir,
                   error=engine.error,
                   on_start=lambda: engine.started(container, account, workdir, copy_up, limits))
        except BaseException:
            sandbox.close()
            raise
        return sandbox

    def cleanup_leftovers(self) -> int:
        """Remove containers of dead or overdue harness processes; see `cleanup_leftovers`."""
        return cleanup_leftovers(self.client)

    def _cleanup_once(self) -> None:
        engine = f"{self.name} {getattr(self.client.api, 'base_url', '')}"
        with _cleaned_lock:
            if engine in _cleaned:
                return
            _cleaned.add(engine)
        cleanup_leftovers(self.client)


def _sealed(client: Any, image_id: str, workdir: str, base_commit: str) -> str:
    try:
        return sealed_image(client, image_id, workdir, base_commit,
                            labels=managed_labels("seal", _SEAL_LIFETIME_S))
    except _ERRORS as e:
        raise sandbox_error(f"sealing {image_id[:19]} at {base_commit[:12]}", e) from e


def _open_overlay(client: Any, image_id: str, workdir: str,
                  labels: dict[str, str]) -> Overlay | None:
    lowers = overlay.workdir_layers(client, image_id, workdir)
    if lowers is None:
        return None  # reached through a symlink: copied instead, under the same read-only root
    return overlay.create(client, image_id, lowers, f"evaluator-{secrets.token_hex(8)}", labels)


def _mounts(workdir_overlay: Overlay | None, workdir: str) -> list[docker.types.Mount]:
    if workdir_overlay is None:
        return []
    # no_copy: the engine would otherwise copy the image's workdir into an empty-looking volume.
    return [docker.types.Mount(workdir, workdir_overlay.volume, type="volume", no_copy=True)]


def _drop(client: Any, workdir_overlay: Overlay | None, volumes: list[str]) -> None:
    if workdir_overlay is not None:
        overlay.remove(client, workdir_overlay.volume)
    for volume in volumes:
        overlay.remove(client, volume)


def _closer(client: Any, workdir_overlay: Overlay | None,
            volumes: list[str]) -> Callable[[ExecSandbox], None]:
    if workdir_overlay is None and not volumes:
        return _registry.unregister

    def closed(sandbox: ExecSandbox) -> None:  # on the removal thread, once the container is gone
        _registry.unregister(sandbox)
        _drop(client, workdir_overlay, volumes)

    return closed


def _start(
    sandbox: ExecSandbox, container: docker.models.containers.Container, workdir: str,
    *, copy: bool, error: Callable[[str, Exception], SandboxError] = sandbox_error,
    on_start: Callable[[], None] = lambda: None,
) -> None:
    """Start the container; with `copy`, fill the (empty) workdir tmpfs with the image's."""
    started = time.monotonic()
    spool = tempfile.SpooledTemporaryFile(max_size=64 << 20) if copy else None
    try:
        if spool is not None:
            # Read in full before start: the engine holds the container while it streams the
            # archive, so starting it with the stream unread deadlocks once the socket fills.
            try:
                # `/.`: the folder's contents, through a symlink if the workdir is one.
                chunks, _stat = container.get_archive(workdir.rstrip("/") + "/.")
                for chunk in chunks:
                    spool.write(chunk)
            except docker.errors.NotFound:
                spool.close()
                spool = None
            except _ERRORS as e:
                raise sandbox_error(f"reading {workdir} from the image", e) from e
        try:
            container.start()
        except _ERRORS as e:
            raise error("starting the sandbox container", e) from e
        on_start()
        if spool is None:
            return
        spool.seek(0)
        raw = sandbox._extract(iter(lambda: spool.read(1 << 20), b""), workdir, strip=1)
    finally:
        if spool is not None:
            spool.close()
    if raw.exit_code != 0:
        detail = (raw.stdout.value() + raw.stderr.value()).decode("utf-8", errors="replace")
        raise SandboxError(
            f"copying {workdir} into the sandbox failed after {time.monotonic() - started:.1f}s "
            f"(exit {raw.exit_code}): {detail.strip()[-2000:]}"
        )
