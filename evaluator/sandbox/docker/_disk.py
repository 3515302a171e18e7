"""How a sandbox's writable disk is capped on this engine, decided once per engine and process.

- `overlay` (the default on overlay2 engines the harness can see, e.g. Docker's default on this
  machine): the root is mounted read-only; the workdir is an overlay over the image's own layer
  folders with an upper folder of its own (see `_overlay`), so nothing is copied and opening a
  sandbox costs the same whatever the repository's size. No single file may grow past the cap
  (the kernel's file-size limit, so one huge write stops exactly there), and the harness measures
  the upper folder every `WATCH_INTERVAL_S` and kills the sandbox once it is past the cap: many
  files written at once overshoot by at most the disk's speed times that interval.
- `engine`: the storage driver caps a container's own copy-on-write layer (`--storage-opt size=`:
  btrfs with quotas, zfs). The workdir is the image's own files, copy-on-write; the root is not
  mounted read-only (the cap covers it), so files its owner may write stay writable.
- `watch` (where neither works: a remote engine, a harness that is not root): as `engine`, with
  the cap of `overlay` measured on the container's layer instead of enforced by the engine.
- `tmpfs`: the root stays read-only and the workdir is copied into a size-capped tmpfs on every
  open: a hard cap everywhere, but the copy costs time and memory in proportion to the
  repository.

`EVAL_SANDBOX_DISK=overlay|engine|watch|tmpfs` forces one; a forced mode the engine cannot give
is an error that says why.
"""

from __future__ import annotations

import multiprocessing
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any, Literal

import docker.errors
import requests

from evaluator.console import say
from evaluator.errors import BadInputError, SandboxError
from evaluator.hashing import hash_bytes
from evaluator.sandbox.docker import _overlay as overlay
from evaluator.settings import Settings, settings

DiskMode = Literal["overlay", "engine", "watch", "tmpfs"]
WATCH_INTERVAL_S = 0.5
ENV = Settings.sandbox_disk.env
# Room the engine needs above the image's own size before the first byte is written.
_PROBE_SIZE = "64G"

_modes: dict[str, DiskMode] = {}
# Weak: a client's id may be reused by a client of another engine once it is gone.
_by_client: weakref.WeakKeyDictionary[Any, DiskMode] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def disk_mode(client: Any, image_id: str) -> DiskMode:
    """The mode in force for this engine; says which on stderr the first time it is decided."""
    forced = settings.sandbox_disk or ""
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
    mode, why_not = _choose(client, image_id, forced, driver)
    with _lock:
        first = engine not in _modes
        _modes[engine] = mode
        _by_client[client] = mode
    if first and _first_of_its_run(engine):
        why = f" (no overlay workdirs: {why_not})" if mode in ("engine", "watch") and why_not else ""
        say(f"evaluator: sandbox disk cap: {describe(mode, driver)}{why}", err=True)
    return mode


def _first_of_its_run(engine: str) -> bool:
    """False in a worker process (`doit -P process`) whose siblings already said it: one line
    per run, not one per worker."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return True
    marker = Path(tempfile.gettempdir()) / f"evaluator-disk-{hash_bytes(engine.encode())[:12]}-{parent.pid}"
    try:
        marker.touch(exist_ok=False)
    except FileExistsError:
        return False
    except OSError:
        return True
    return True


def _choose(client: Any, image_id: str, forced: str, driver: str) -> tuple[DiskMode, str]:
    """The mode, and why workdirs cannot be overlays here ("" if they can or were not asked)."""
    why_not = overlay.usable(client, image_id) if forced in ("", "overlay") else ""
    if forced == "overlay" and why_not:
        raise BadInputError(f"{ENV}=overlay, but {why_not}; unset it to let the harness choose")
    if not forced and not why_not:
        return "overlay", ""
    can_cap = forced in ("", "engine") and _can_cap(client, image_id)
    if forced == "engine" and not can_cap:
        raise BadInputError(
            f"{ENV}=engine, but this engine's {driver} storage cannot cap a container's layer; "
            "start dockerd on a btrfs data root (see .ci/docker-up) or unset it"
        )
    if forced:
        return forced, why_not  # type: ignore[return-value]
    return ("engine" if can_cap else "watch"), why_not


def describe(mode: DiskMode, driver: str) -> str:
    if mode == "overlay":
        return ("overlay: read-only roots; workdirs are overlays on the image's own layers "
                "(nothing copied); no file may pass the cap, and a sandbox whose workdir passes "
                f"it is killed within {WATCH_INTERVAL_S:g}s; {ENV}=tmpfs for a hard cap")
    if mode == "engine":
        return (f"engine ({driver} --storage-opt size=); workdirs are the image's own "
                "copy-on-write files, the root is not mounted read-only")
    if mode == "watch":
        return (f"watched (the {driver} storage cannot cap a container's layer): workdirs are the "
                "image's own copy-on-write files, the root is not mounted read-only, no file may "
                f"pass the cap, and a sandbox whose layer passes it is killed within "
                f"{WATCH_INTERVAL_S:g}s; {ENV}=tmpfs for a hard cap")
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
