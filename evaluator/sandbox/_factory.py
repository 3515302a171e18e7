"""Opening Docker sandboxes: one locked-down container per use, with the image's workdir copied
into a size-capped tmpfs.

The root filesystem is read-only and every writable place is a tmpfs with a size, because the
overlay2-on-ext4 storage driver cannot cap a container's disk use (`--storage-opt size`).
"""

from __future__ import annotations

import threading
import time
from pathlib import PurePosixPath

import docker
import docker.errors
import requests

from evaluator.errors import BadInputError, SandboxError
from evaluator.sandbox import _registry
from evaluator.sandbox._accounts import Account, resolve_account
from evaluator.sandbox._client import docker_client, sandbox_error
from evaluator.sandbox._docker import DockerSandbox
from evaluator.sandbox._leftovers import cleanup_leftovers, managed_labels
from evaluator.sandbox._types import SandboxLimits

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
# Leftover cleanup must not remove a container its owner is still opening or closing.
_LABEL_MARGIN_S = 60
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
        image_id = self._image_id(image)
        labels = managed_labels(purpose, limits.sandbox_timeout_s + _LABEL_MARGIN_S)
        try:
            account = resolve_account(client, image_id, user, labels)
            container = client.containers.create(
                image_id,
                command=["sleep", "infinity"],
                init=True,
                user=user,
                working_dir=workdir,
                hostname="sandbox",
                network_mode="none",
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                pids_limit=limits.pids,
                mem_limit=f"{limits.memory_mb}m",
                memswap_limit=f"{limits.memory_mb}m",
                nano_cpus=int(limits.cpus * 1e9),
                read_only=True,
                tmpfs=_tmpfs(limits, account, workdir),
                labels=labels,
            )
        except _ERRORS as e:
            raise sandbox_error(f"creating a sandbox from {image}", e) from e
        sandbox = DockerSandbox(
            client, container, limits, user=user, workdir=workdir, on_close=_registry.unregister
        )
        _registry.register(sandbox)
        try:
            _start(sandbox, container, workdir)
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

    def _image_id(self, image: str) -> str:
        try:
            return str(self.client.images.get(image).id)
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


def _tmpfs(limits: SandboxLimits, account: Account, workdir: str) -> dict[str, str]:
    # exec is allowed: agents build and run code in all three places.
    base = f"rw,exec,nosuid,nodev,size={limits.disk_mb}m"
    owned = f"{base},mode=755,uid={account.uid},gid={account.gid}"
    mounts = {"/tmp": f"{base},mode=1777", workdir: owned}
    home = account.home
    if home and all(_apart(home, other) for other in mounts):
        mounts[home] = owned
    return mounts


def _apart(a: str, b: str) -> bool:
    pa, pb = PurePosixPath(a), PurePosixPath(b)
    return pa != PurePosixPath("/") and not pa.is_relative_to(pb) and not pb.is_relative_to(pa)


def _start(
    sandbox: DockerSandbox, container: docker.models.containers.Container, workdir: str
) -> None:
    """Start the container and fill the (empty) workdir tmpfs with the image's workdir."""
    started = time.monotonic()
    try:
        # Read before start: the daemon reads the image's layers, which the tmpfs will hide.
        chunks, _stat = container.get_archive(workdir)
    except docker.errors.NotFound:
        chunks = None
    except _ERRORS as e:
        raise sandbox_error(f"reading {workdir} from the image", e) from e
    try:
        container.start()
    except _ERRORS as e:
        raise sandbox_error("starting the sandbox container", e) from e
    if chunks is None:
        return
    raw = sandbox._extract(chunks, workdir, strip=1)
    if raw.exit_code != 0:
        detail = (raw.stdout.value() + raw.stderr.value()).decode("utf-8", errors="replace")
        raise SandboxError(
            f"copying {workdir} into the sandbox failed after {time.monotonic() - started:.1f}s "
            f"(exit {raw.exit_code}): {detail.strip()[-2000:]}"
        )
