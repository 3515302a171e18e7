"""Resolving a Docker `user` string to numbers and a home directory, from the image's own files.

The tmpfs mounts must be created owned by the sandbox user (there is no CAP_CHOWN inside to fix
ownership later), so the numbers are needed before the container exists.
"""

from __future__ import annotations

import io
import tarfile
import threading
from dataclasses import dataclass
from typing import Any

import docker.errors

from evaluator.errors import BadInputError

_cache: dict[str, tuple[str, str]] = {}
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class Account:
    uid: int
    gid: int
    home: str | None


def resolve_account(client: Any, image_id: str, user: str, labels: dict[str, str]) -> Account:
    """The uid, gid and home of `user` (`uid[:gid]` or `name[:group]`) in image `image_id`.

    `labels` mark the short-lived probe container, so a crash leaves nothing unaccounted for.
    """
    passwd, group = _account_files(client, image_id, labels)
    users = _table(passwd)
    name, _, group_name = user.partition(":")
    entry = next((e for e in users if e[0] == name or e[2] == name), None)
    if name.isdigit():
        uid = int(name)
    elif entry is not None:
        uid = int(entry[2])
    else:
        raise BadInputError(f"user {user!r} does not exist in image {image_id}; use `uid:gid`")
    if entry is None:
        entry = next((e for e in users if e[2] == str(uid)), None)
    if group_name.isdigit():
        gid = int(group_name)
    elif group_name:
        found = next((g for g in _table(group) if g[0] == group_name), None)
        if found is None:
            raise BadInputError(f"group {group_name!r} does not exist in image {image_id}")
        gid = int(found[2])
    else:
        # Docker's own rule: the passwd entry's group, else root's.
        gid = int(entry[3]) if entry is not None else 0
    home = entry[5] if entry is not None and len(entry) > 5 and entry[5].startswith("/") else None
    return Account(uid, gid, home)


def _table(text: str) -> list[list[str]]:
    rows = [line.split(":") for line in text.splitlines() if line and not line.startswith("#")]
    return [row for row in rows if len(row) >= 4 and row[2].isdigit()]


def _account_files(client: Any, image_id: str, labels: dict[str, str]) -> tuple[str, str]:
    with _cache_lock:
        if image_id in _cache:
            return _cache[image_id]
    # A created, never started container is the cheapest way to read files out of an image.
    probe = client.containers.create(image_id, command=["true"], network_mode="none", labels=labels)
    try:
        files = (_read(probe, "/etc/passwd"), _read(probe, "/etc/group"))
    finally:
        probe.remove(force=True)
    with _cache_lock:
        _cache[image_id] = files
    return files


def _read(container: Any, path: str) -> str:
    try:
        chunks, _stat = container.get_archive(path)
    except docker.errors.NotFound:
        return ""
    with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as tar:
        member = tar.next()
        f = tar.extractfile(member) if member is not None else None
        return f.read().decode("utf-8", errors="replace") if f is not None else ""
