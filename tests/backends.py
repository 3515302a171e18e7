"""What a test asks of a sandbox whatever its backend: does anything of it still run, is it still
there, and removing what a test left. An engine's sandbox is a container; a daemonless one is a
folder (and a cgroup) with nothing running between its execs."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from pathlib import Path
from typing import Any

import docker.errors

from evaluator.sandbox.daemonless import _cgroups as cg


def running(sandboxes: Any, sid: str) -> bool:
    """Whether a process of sandbox `sid` still runs."""
    if sandboxes.name != "daemonless":
        return bool(sandboxes.client.containers.get(sid).status == "running")
    found = subprocess.run(["pgrep", "-f", sid], capture_output=True, text=True).stdout.split()
    in_cgroup = any((f / "cgroup.procs").read_text().split()
                    for f in cg.leftovers(sandboxes.hierarchy).get(sid, ()))
    return bool(found) or in_cgroup


def exists(sandboxes: Any, sid: str) -> bool:
    """Whether sandbox `sid` is still there (running or not)."""
    if sandboxes.name == "daemonless":
        return bool((sandboxes.root / "sandboxes" / sid).exists())
    try:
        sandboxes.client.containers.get(sid)
    except docker.errors.NotFound:
        return False
    return True


def remove(sandboxes: Any, sid: str) -> None:
    """Remove sandbox `sid`, whatever still runs in it."""
    if sandboxes.name == "daemonless":
        cg.remove(cg.leftovers(sandboxes.hierarchy).get(sid, ()))
        with contextlib.suppress(OSError):  # its view's mount point, in /tmp (an empty folder)
            Path((sandboxes.root / "sandboxes" / sid / "view").read_text()).rmdir()
        shutil.rmtree(sandboxes.root / "sandboxes" / sid, ignore_errors=True)
        return
    with contextlib.suppress(docker.errors.NotFound):
        sandboxes.client.containers.get(sid).remove(force=True)


def rootless(sandboxes: Any) -> bool:
    """Whether `sandboxes` are a rootless podman service's (the disk modes `watch` and `tmpfs`
    only: docs/podman.md)."""
    return sandboxes.name == "podman" and sandboxes.backend().detail.startswith("rootless")


def child_env(sandboxes: Any) -> dict[str, str]:
    """What a child harness needs to reach the same backend: its name, and podman's socket
    (the rootless service's is not the setting's)."""
    env = {"EVAL_SANDBOX_BACKEND": sandboxes.name}
    if sandboxes.name == "podman":
        adapter = sandboxes.client.api.get_adapter("http+docker://localhost")
        env["EVAL_PODMAN_HOST"] = f"unix://{adapter.socket_path}"
    return env
