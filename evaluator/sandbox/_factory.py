"""Opening Docker sandboxes: one locked-down container per use.

The workdir is the image's own files, copy-on-write, and nothing is copied: an overlay over the
image's layers under a read-only root where the engine allows it, else the container's own layer
(see `_disk` for the modes and their caps); `EVAL_SANDBOX_DISK=tmpfs` copies it into a capped
tmpfs under a read-only root instead. PID 1 runs as a uid of its own and exits at the sandbox's deadline, so
the sandbox user cannot kill it and an orphan whose harness was SIGKILLed still ends.
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
from evaluator.sandbox import _overlay as overlay
from evaluator.sandbox import _registry
from evaluator.sandbox._accounts import Account, resolve_account
from evaluator.sandbox._client import docker_client, sandbox_error
from evaluator.sandbox._disk import DiskMode, disk_mode, layer_size
from evaluator.sandbox._docker import DockerSandbox
from evaluator.sandbox._leftovers import cleanup_leftovers, managed_labels
from evaluator.sandbox._overlay import Overlay
from evaluator.sandbox._types import SandboxLimits

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
# Leftover cleanup must not remove a container its owner is still opening or closing.
_LABEL_MARGIN_S = 60
# PID 1 exits this long after the sandbox's own deadline, even if no harness is left to kill it.
_ORPHAN_GRACE_S = 5
# PID 1 and its sleep run as this uid (another if the sandbox user has it): nobody in the
# sandbox may signal them, and so `kill -1` after every exec cannot end the sandbox itself.
_KEEPER_UIDS = (65534, 65533)
_cleaned = False
_cleaned_lock = threading.Lock()


class DockerSandboxes:
    """Opens `DockerSandbox`es; the first open in a process removes earlier runs' leftovers."""

    def __init__(self, client: docker.DockerClient | None = None) -> None:
        self._client = client

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = docker_client()
        return self._client

    def open(
        self,
        image: str,
        limits: SandboxLimits,
        *,
        user: str = "1000:1000",
        workdir: str = "/testbed",
        purpose: str = "",
    ) -> DockerSandbox:
        """Start a sandbox from the local image `image` (an id or `name@sha256:...`)."""
        if not PurePosixPath(workdir).is_absolute() or PurePosixPath(workdir) == PurePosixPath("/"):
            raise BadInputError(f"workdir {workdir!r} must be an absolute path below /")
        client = self.client
        self._cleanup_once()
        image_id, image_size = self._image(image)
        mode = disk_mode(client, image_id)
        labels = managed_labels(purpose, limits.sandbox_timeout_s + _LABEL_MARGIN_S)
        workdir_overlay: Overlay | None = None
        try:
            account = resolve_account(client, image_id, user, labels, workdir)
            if mode == "overlay" and account.has_workdir:
                workdir_overlay = _open_overlay(client, image_id, workdir, labels)
            copy_up = mode == "tmpfs" or not account.has_workdir or (
                mode == "overlay" and workdir_overlay is None)
            keeper = next(u for u in _KEEPER_UIDS if u != account.uid)
            container = client.containers.create(
                image_id,
                command=["sleep", str(int(limits.sandbox_timeout_s + _ORPHAN_GRACE_S))],
                init=True,
                user=f"{keeper}:{keeper}",
                working_dir=workdir,
                hostname="sandbox",
                network_mode="none",
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                pids_limit=limits.pids,
                mem_limit=f"{limits.memory_mb}m",
                memswap_limit=f"{limits.memory_mb}m",
                nano_cpus=int(limits.cpus * 1e9),
                tmpfs=_tmpfs(limits, account, workdir, with_workdir=copy_up),
                mounts=_mounts(workdir_overlay, workdir),
                labels=labels,
                **_disk_options(mode, image_size, limits),
            )
        except BaseException as e:
            if workdir_overlay is not None:
                overlay.remove(client, workdir_overlay.volume)
            if isinstance(e, _ERRORS):
                raise sandbox_error(f"creating a sandbox from {image}", e) from e
            raise
        sandbox = DockerSandbox(
            client, container, limits, user=user, workdir=workdir,
            on_close=_closer(client, workdir_overlay), disk_used=_measure(mode, workdir_overlay),
        )
        _registry.register(sandbox)
        try:
            _start(sandbox, container, workdir, copy=copy_up and account.has_workdir)
        except BaseException:
            sandbox.close()
            raise
        return sandbox

    def cleanup_leftovers(self) -> int:
        """Remove containers of dead or overdue harness processes; see `cleanup_leftovers`."""
        return cleanup_leftovers(self.client)

    def _cleanup_once(self) -> None:
        global _cleaned
        with _cleaned_lock:
            if _cleaned:
                return
            _cleaned = True
        cleanup_leftovers(self.client)

    def _image(self, image: str) -> tuple[str, int]:
        try:
            found = self.client.images.get(image)
            return str(found.id), int(found.attrs.get("Size") or 0)
        except docker.errors.ImageNotFound as e:
            raise BadInputError(
                f"image {image} is not present locally and sandbox images are never pulled: run "
                "`doit lock:<set>` for the task set that names it (it builds or loads the image)"
            ) from e
        except docker.errors.APIError as e:
            if e.is_client_error():
                raise BadInputError(f"image reference {image!r} is not usable: {e}") from e
            raise sandbox_error(f"looking up image {image}", e) from e
        except _ERRORS as e:
            raise sandbox_error(f"looking up image {image}", e) from e


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


def _closer(client: Any, workdir_overlay: Overlay | None) -> Callable[[DockerSandbox], None]:
    if workdir_overlay is None:
        return _registry.unregister

    def closed(sandbox: DockerSandbox) -> None:  # on the removal thread, once the container is gone
        _registry.unregister(sandbox)
        overlay.remove(client, workdir_overlay.volume)

    return closed


def _measure(mode: DiskMode,
             workdir_overlay: Overlay | None) -> Callable[[DockerSandbox], int | None] | None:
    if mode == "watch":
        return DockerSandbox.layer_bytes
    if workdir_overlay is not None:
        upper = workdir_overlay.upper
        return lambda _sandbox: overlay.used_bytes(upper)
    return None


def _disk_options(mode: DiskMode, image_size: int, limits: SandboxLimits) -> dict[str, Any]:
    cap = limits.disk_mb << 20
    fsize = [docker.types.Ulimit(name="fsize", soft=cap, hard=cap)]
    if mode == "engine":
        return {"read_only": False, "storage_opt": {"size": layer_size(image_size, limits.disk_mb)}}
    if mode == "watch":
        return {"read_only": False, "ulimits": fsize}
    if mode == "overlay":
        return {"read_only": True, "ulimits": fsize}
    return {"read_only": True}


def _tmpfs(
    limits: SandboxLimits, account: Account, workdir: str, *, with_workdir: bool
) -> dict[str, str]:
    # exec is allowed: agents build and run code in all three places.
    base = f"rw,exec,nosuid,nodev,size={limits.disk_mb}m"
    owned = f"{base},mode=755,uid={account.uid},gid={account.gid}"
    mounts = {"/tmp": f"{base},mode=1777"}
    if with_workdir:
        mounts[workdir] = owned
    home = account.home
    if home and all(_apart(home, other) for other in (*mounts, workdir)):
        mounts[home] = owned
    return mounts


def _apart(a: str, b: str) -> bool:
    pa, pb = PurePosixPath(a), PurePosixPath(b)
    return pa != PurePosixPath("/") and not pa.is_relative_to(pb) and not pb.is_relative_to(pa)


def _start(
    sandbox: DockerSandbox, container: docker.models.containers.Container, workdir: str,
    *, copy: bool,
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
            raise sandbox_error("starting the sandbox container", e) from e
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
