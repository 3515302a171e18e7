"""How a sandbox's writable disk is capped on this engine, decided once per engine and process.

- `engine`: the storage driver caps a container's own copy-on-write layer (`--storage-opt size=`:
  btrfs with quotas, zfs, overlay2 on xfs with `pquota`). The workdir is the image's own files,
  copy-on-write, so opening a sandbox costs the same whatever the repository's size.
- `watch` (the default where the driver cannot cap, e.g. overlay2 on ext4): the workdir is the
  image's own files, copy-on-write, as in `engine`; no single file may grow past the cap (the
  kernel's file-size limit, so one huge write stops exactly there), and the harness polls the
  layer's size every `WATCH_INTERVAL_S` and kills the sandbox once it is past the cap: many
  files written at once overshoot by at most the disk's speed times that interval.
- `tmpfs`: the root stays read-only and the workdir is copied into a size-capped tmpfs on every
  open: a hard cap everywhere, but the copy costs time and memory in proportion to the
  repository.

`EVAL_SANDBOX_DISK=engine|watch|tmpfs` forces one; `engine` on an engine that cannot cap is an
error.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from typing import Any, Literal

import docker.errors
import requests

from evaluator.errors import BadInputError, SandboxError

DiskMode = Literal["engine", "watch", "tmpfs"]
WATCH_INTERVAL_S = 0.5
ENV = "EVAL_SANDBOX_DISK"
# Room the engine needs above the image's own size before the first byte is written.
_PROBE_SIZE = "64G"

_modes: dict[str, DiskMode] = {}
# Weak: a client's id may be reused by a client of another engine once it is gone.
_by_client: weakref.WeakKeyDictionary[Any, DiskMode] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def disk_mode(client: Any, image_id: str) -> DiskMode:
    """The mode in force for this engine; says which on stderr the first time it is decided."""
    forced = os.environ.get(ENV, "")
    if forced not in ("", "engine", "watch", "tmpfs"):
        raise BadInputError(
            f"{ENV}={forced!r} is not a disk mode; use `engine`, `watch`, `tmpfs` or unset it")
    with _lock:
        if client in _by_client:  # opened per sandbox: no engine round trip once decided
            return _by_client[client]
    info = _info(client)
    engine = str(info.get("ID") or info.get("Name") or "default")
    with _lock:
        if engine in _modes:
            _by_client[client] = _modes[engine]
            return _modes[engine]
    driver = str(info.get("Driver", "?"))
    can_cap = _can_cap(client, image_id)
    if forced == "engine" and not can_cap:
        raise BadInputError(
            f"{ENV}=engine, but this engine's {driver} storage cannot cap a container's layer; "
            "start dockerd on a btrfs data root (see .ci/docker-up) or unset it"
        )
    mode: DiskMode = (forced or ("engine" if can_cap else "watch"))  # type: ignore[assignment]
    with _lock:
        first = engine not in _modes
        _modes[engine] = mode
        _by_client[client] = mode
    if first:
        print(f"evaluator: sandbox disk cap: {describe(mode, driver)}", file=sys.stderr)
    return mode


def describe(mode: DiskMode, driver: str) -> str:
    if mode == "engine":
        return (f"engine ({driver} --storage-opt size=); workdirs are the image's own "
                "copy-on-write files")
    if mode == "watch":
        return (f"watched (the {driver} storage cannot cap a container's layer): workdirs are the "
                "image's own copy-on-write files, no file may pass the cap, and a sandbox whose "
                f"layer passes it is killed within {WATCH_INTERVAL_S:g}s; {ENV}=tmpfs for a hard cap")
    return (f"tmpfs copies ({ENV}=tmpfs): each open copies the workdir, so large repositories "
            "open slowly: see tasks/README.md")


def layer_size(image_size_bytes: int, disk_mb: int) -> str:
    """The engine cap: it counts the image's files as well as what the sandbox writes."""
    # Referenced bytes run a few percent above the image's reported size (metadata, extents).
    return f"{int((image_size_bytes >> 20) * 1.05) + disk_mb + 16}M"


def _info(client: Any) -> dict[str, Any]:
    try:
        return dict(client.info())
    except (docker.errors.DockerException, requests.RequestException) as e:
        raise SandboxError(f"asking the Docker engine for its storage driver: {e}") from e


def _can_cap(client: Any, image_id: str) -> bool:
    """Ask the engine itself: a created, never started container with a size option."""
    try:
        probe = client.containers.create(image_id, command=["true"], network_mode="none",
                                         storage_opt={"size": _PROBE_SIZE},
                                         labels={"evaluator.managed": "1",
                                                 "evaluator.deadline": "0"})
    except docker.errors.APIError as e:
        if e.is_client_error() or "storage" in str(e).lower() or "quota" in str(e).lower():
            return False
        raise SandboxError(f"probing the engine's disk cap: {e}") from e
    except (docker.errors.DockerException, requests.RequestException) as e:
        raise SandboxError(f"probing the engine's disk cap: {e}") from e
    # Nobody waits for its removal (a second on btrfs); its past deadline lets the next leftover
    # cleanup take it if this process dies first.
    threading.Thread(target=_remove, args=(probe,), daemon=True).start()
    return True


def _remove(container: Any) -> None:
    try:
        container.remove(force=True)
    except (docker.errors.DockerException, requests.RequestException):
        pass
