"""A copy-on-write workdir for a read-only root: an overlay volume over the image's own layers.

The container's root stays mounted read-only; its workdir is an overlay mount (Docker's `local`
volume driver, `type=overlay`) whose lower layers are the workdir folders inside the image's own
overlay2 layer folders, and whose upper layer is a fresh volume of its own. Nothing is copied,
so a sandbox opens at the same cost whatever the repository's size, and whatever the sandbox
writes there lands in the upper folder, which the harness measures to enforce `disk_mb`.

It needs what the engine's layers are made of: Docker's overlay2 driver or podman's overlay
(containers/storage lays its layers out the same way: `diff` folders, `link` files, short
links under `l/`), and those folders readable by this process (the engine on this machine, the
harness as root). Elsewhere `_disk` picks another mode and says so.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import docker.errors
import requests

from evaluator.errors import SandboxError
from evaluator.sandbox._layers import holding

_ERRORS = (docker.errors.DockerException, requests.RequestException, ConnectionError)
_LAYERED = ("overlay2", "overlay")  # Docker's and podman's names for one layout
# mount(2) takes at most a page of options; overlay2's short layer links keep well inside it.
_MAX_OPTIONS = 4000

_layers: dict[tuple[str, str], tuple[str, ...] | None] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Overlay:
    """The two volumes behind one sandbox's workdir; `upper` is a path on the engine's host."""

    volume: str
    upper_volume: str
    upper: str


def usable(client: Any, image_id: str) -> str:
    """Why this engine's workdirs cannot be overlays here, or "" when they can."""
    try:
        graph = client.api.inspect_image(image_id).get("GraphDriver") or {}
    except _ERRORS as e:
        raise SandboxError(f"inspecting image {image_id[:19]}: {e}") from e
    if graph.get("Name") not in _LAYERED:
        return f"the engine's storage is {graph.get('Name')}, not overlay2 (podman: overlay)"
    upper = (graph.get("Data") or {}).get("UpperDir", "")
    if not upper or not os.path.isdir(upper):
        return "the engine's layer folders are not on this machine (a remote engine?)"
    if os.geteuid() != 0:
        return "the harness is not root, so it cannot read the engine's layer folders"
    return ""


def workdir_layers(client: Any, image_id: str, workdir: str) -> tuple[str, ...] | None:
    """The image's layer folders that hold `workdir`, topmost first, as overlay lower dirs;
    None when the workdir is reached through a symlink or a non-folder (not overlaid)."""
    # Per engine: another engine on this machine holds the same image ids in other folders, and
    # a removed and reloaded image gets new ones (checked before a cached answer is used).
    key = (f"{getattr(client.api, 'base_url', '')} {image_id}", workdir)
    with _lock:
        cached = _layers.get(key, ())
    if cached is None or (cached and all(os.path.isdir(p) for p in cached)):
        return cached
    try:
        data = (client.api.inspect_image(image_id).get("GraphDriver") or {}).get("Data") or {}
    except _ERRORS as e:
        raise SandboxError(f"inspecting image {image_id[:19]}: {e}") from e
    stack = [data["UpperDir"], *filter(None, (data.get("LowerDir") or "").split(":"))]
    parts = PurePosixPath(workdir).parts[1:]
    found = [_short(diff) + "/" + "/".join(parts) for diff in holding(map(Path, stack), workdir)]
    result = tuple(found) if found else None
    with _lock:
        _layers[key] = result
    return result


def create(client: Any, image_id: str, lowers: tuple[str, ...], name: str,
           labels: dict[str, str]) -> Overlay:
    """Make the upper volume (owned like the image's workdir) and the overlay volume over it."""
    upper_volume = f"{name}-up"
    try:
        made = client.api.create_volume(upper_volume, driver="local", labels=labels)
        base = Path(made["Mountpoint"])
        upper, work = base / "upper", base / "work"
        upper.mkdir()
        work.mkdir()
        # The merged root takes the upper folder's owner and mode: the image's, not root's 755.
        top = os.stat(lowers[0])
        os.chown(upper, top.st_uid, top.st_gid)
        os.chmod(upper, stat.S_IMODE(top.st_mode))
        options = f"lowerdir={':'.join(lowers)},upperdir={upper},workdir={work}"
        if len(options) > _MAX_OPTIONS:
            raise SandboxError(f"image {image_id[:19]} has too many layers ({len(lowers)}) for "
                               "one overlay mount; squash it, or set EVAL_SANDBOX_DISK=tmpfs")
        client.api.create_volume(name, driver="local", labels=labels,
                                 driver_opts={"type": "overlay", "device": "overlay",
                                              "o": options})
    except (*_ERRORS, OSError) as e:
        remove(client, name)
        if isinstance(e, SandboxError):
            raise
        raise SandboxError(f"preparing the overlay workdir {name}: {e}") from e
    return Overlay(name, upper_volume, str(upper))


def remove(client: Any, name: str) -> None:
    """Remove both volumes of `name` (the overlay first: the upper must outlive its mount)."""
    for volume in (name, f"{name}-up"):
        try:
            client.api.remove_volume(volume)
        except docker.errors.NotFound:
            continue
        except _ERRORS:
            return  # still mounted, or a busy engine: leftover cleanup takes it later


def _short(diff: Path) -> str:
    """overlay2's short link to a layer (`l/<id>`), which keeps the mount options short."""
    try:
        link = (diff.parent / "link").read_text().strip()
    except OSError:
        return str(diff)
    short = diff.parent.parent / "l" / link
    return str(short) if link and short.is_symlink() else str(diff)
