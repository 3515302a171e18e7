"""Finding and removing containers (and their workdir volumes) that a dead or overdue harness
process left behind.

A sandbox stops by itself once its harness is gone (its lease, see `_lease`), so what is left
here is mostly stopped containers and their volumes. A stopped one is removed when its owner is
judged dead or its deadline passed, or, when its owner cannot be judged from here, a minute after
it stopped (until then its owner may be reading its logs or files); so is a workdir volume no
container uses any more (past a margin, since its owner makes it just before its container). A
running one is removed when its owner is judged dead or its deadline passed (`_labels`); a
running container whose owner cannot be judged from here is left to its lease and its
deadline.
"""

from __future__ import annotations

import datetime
import time

import docker
import docker.errors
import requests

from evaluator.console import say
from evaluator.sandbox._labels import MANAGED, abandoned, judgeable, older
from evaluator.sandbox.docker import _overlay as overlay
from evaluator.sandbox.docker._client import docker_client, sandbox_error

# A workdir volume no container uses is its owner's for this long after its labels were made:
# the owner creates it, then its container, in far less.
_UNUSED_AFTER_S = 60
# A stopped container whose owner cannot be judged from here is its owner's for this long after
# it stopped (to read what it left); then anyone removes it.
STOPPED_GRACE_S = 60
# States in which a container runs nothing and never will again.
# Podman says "stopped" from its container's end until its cleanup has run ("exited"): a
# quarter of a second when idle, longer under load.
_STOPPED = ("exited", "dead", "stopped")


def cleanup_leftovers(client: docker.DockerClient | None = None) -> int:
    """Remove managed containers whose owner process on this host is gone or whose deadline
    passed; return how many were removed."""
    client = client or docker_client()
    try:
        # The plain listing: inspecting each container would race with their owners' removals.
        containers = client.api.containers(all=True, filters={"label": f"{MANAGED}=1"})
    except (docker.errors.DockerException, requests.RequestException) as e:
        raise sandbox_error("listing leftover sandboxes", e) from e
    removed = 0
    for container in containers:
        labels = container.get("Labels") or {}
        if container.get("State") in _STOPPED:
            if not _stopped_unwanted(client, container["Id"], labels):
                continue
        elif not abandoned(labels):
            continue
        try:
            client.api.remove_container(container["Id"], force=True)
            removed += 1
        except docker.errors.NotFound:
            pass  # its owner or another process removed it first
        except (docker.errors.DockerException, requests.RequestException) as e:
            say(f"evaluator: could not remove leftover {container['Id'][:12]}: {e}", err=True)
    _cleanup_volumes(client)
    return removed


def _cleanup_volumes(client: docker.DockerClient) -> None:
    """Remove overlay workdir volumes (see `_overlay`) whose owner is gone or overdue."""
    label = {"label": f"{MANAGED}=1"}
    try:
        listed = client.api.volumes(filters=label).get("Volumes") or []
        unused = {v["Name"] for v in client.api.volumes(filters={**label, "dangling": True})
                  .get("Volumes") or []}
    except (docker.errors.DockerException, requests.RequestException) as e:
        raise sandbox_error("listing leftover sandbox volumes", e) from e
    names = {v["Name"] for v in listed}
    for volume in listed:
        name = volume["Name"]
        labels = volume.get("Labels") or {}
        # An upper volume is never mounted by a container itself, only through its overlay.
        overlay_unused = name.removesuffix("-up") in unused or name.removesuffix("-up") not in names
        if not abandoned(labels) and not (overlay_unused and older(labels, _UNUSED_AFTER_S)):
            continue
        if name.endswith("-up") and name.removesuffix("-up") in names:
            continue  # removed with its overlay, never before it: the overlay may be mounted
        overlay.remove(client, name.removesuffix("-up"))


def _stopped_unwanted(client: docker.DockerClient, cid: str, labels: dict[str, str]) -> bool:
    """A stopped container may still be read by its owner (its logs, its files, a layer): it is
    removed once its owner is dead or overdue, or, where its owner cannot be judged from here, once
    it has been stopped for a while. (Removing every stopped one at once took a lock's seal
    container from under the live process reading its logs.)"""
    if abandoned(labels):
        return True
    if judgeable(labels):
        return False
    try:
        finished = client.api.inspect_container(cid)["State"].get("FinishedAt", "")
    except docker.errors.NotFound:
        return False
    except (docker.errors.DockerException, requests.RequestException):
        return False
    return _since(finished) > STOPPED_GRACE_S


def _since(stamp: str) -> float:
    """Seconds since an engine's RFC 3339 time (nanoseconds and all); 0 when it cannot be read."""
    try:
        head = stamp.split(".")[0].rstrip("Z")
        then = datetime.datetime.fromisoformat(head).replace(tzinfo=datetime.UTC)
    except ValueError:
        return 0.0
    if then.year < 2000:  # "0001-01-01T00:00:00Z": never started or never stopped
        return 0.0
    return time.time() - then.timestamp()
