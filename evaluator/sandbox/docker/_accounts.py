"""Resolving a Docker `user` string to numbers and a home directory, from the image's own files,
read through the engine (`_accounts.account_of` reads them).

The tmpfs mounts must be created owned by the sandbox user (there is no CAP_CHOWN inside to fix
ownership later), so the numbers are needed before the container exists.
"""

from __future__ import annotations

import io
import tarfile
import threading
from typing import Any

import docker.errors
import requests

from evaluator.errors import SandboxError
from evaluator.images import TASK_WORKDIR
from evaluator.sandbox._accounts import Account, account_of

_cache: dict[tuple[str, str], tuple[str, str, bool]] = {}
_cache_lock = threading.Lock()


def resolve_account(
    client: Any, image_id: str, user: str, labels: dict[str, str], workdir: str = TASK_WORKDIR
) -> Account:
    """The uid, gid and home of `user` (`uid[:gid]` or `name[:group]`) in image `image_id`.

    `labels` mark the short-lived probe container, so a crash leaves nothing unaccounted for.
    """
    passwd, group, has_workdir = _image_files(client, image_id, labels, workdir)
    return account_of(passwd, group, user, image_id, has_workdir)


def _image_files(
    client: Any, image_id: str, labels: dict[str, str], workdir: str
) -> tuple[str, str, bool]:
    with _cache_lock:
        if (image_id, workdir) in _cache:
            return _cache[(image_id, workdir)]
    # A created, never started container is the cheapest way to read files out of an image.
    probe = client.containers.create(image_id, command=["true"], network_mode="none", labels=labels)
    try:
        files = (_read(probe, "/etc/passwd"), _read(probe, "/etc/group"),
                 _exists(client, probe.id, workdir))
    finally:
        # Removing a container can take a second (btrfs); nobody waits for a probe's removal,
        # and its labels let the next leftover cleanup take it if this process dies first.
        threading.Thread(target=_remove, args=(probe,), daemon=True).start()
    with _cache_lock:
        _cache[(image_id, workdir)] = files
    return files


def _remove(container: Any) -> None:
    try:
        container.remove(force=True)
    except (docker.errors.DockerException, requests.RequestException):
        pass


def _exists(client: Any, container_id: str, path: str) -> bool:
    # HEAD: the path's stat alone, without streaming a folder's contents.
    r = client.api.head(client.api._url("/containers/{0}/archive", container_id),
                        params={"path": path})
    if r.status_code not in (200, 404):
        raise SandboxError(f"asking the engine whether {path} exists: HTTP {r.status_code}")
    return r.status_code == 200


def _read(container: Any, path: str) -> str:
    try:
        chunks, _stat = container.get_archive(path)
    except docker.errors.NotFound:
        return ""
    with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as tar:
        member = tar.next()
        f = tar.extractfile(member) if member is not None else None
        return f.read().decode("utf-8", errors="replace") if f is not None else ""
