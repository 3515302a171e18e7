"""The daemonless backend as the tests use it: the images the tests build on this machine's Docker
engine come over by id (skopeo's `docker-daemon:`, what a host without Docker gets from a
registry or from the archive `docker save` writes), the first time each is opened.

The store is the machine's own (`settings.daemonless_root`), content-addressed and shared by
every test process, as Docker's images are; each image is copied once per machine.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from evaluator.sandbox import DaemonlessSandbox, DaemonlessSandboxes, SandboxLimits
from tests.helpers import unavailable

REPO = Path(__file__).resolve().parents[1]
NOBODY = 65534

TOOLS = ("bwrap", "skopeo", "unshare", "setpriv", "nsenter", "mount", "tar")


def missing() -> str:
    """What this machine lacks to run daemonless sandboxes, or ""."""
    if os.geteuid() != 0:
        return "the daemonless backend needs root"
    absent = [t for t in TOOLS if shutil.which(t) is None]
    return f"{', '.join(absent)} missing (.ci/docker-up --tests installs them)" if absent else ""


def bring(sandboxes: DaemonlessSandboxes, image: str) -> str:
    """Copy `image` (a name or an id on the Docker engine) into the store unless it is there;
    its id."""
    found = sandboxes.store.get(image)
    if found is not None:
        return found.id
    image_id = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", image],
                              capture_output=True, text=True, check=True).stdout.strip()
    lock = Path(sandboxes.root) / f"copy-{image_id[7:23]}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        if not sandboxes.store.has(image_id):
            sandboxes.store.copy_from(f"docker-daemon:{image_id}")
        if image != image_id:
            sandboxes.store.tag(image, image_id)
    return image_id


class DockerFed(DaemonlessSandboxes):
    """Daemonless sandboxes whose images come from the Docker engine as they are first opened."""

    def open(self, image: str, limits: SandboxLimits, **kw: Any) -> DaemonlessSandbox:
        bring(self, image)
        return super().open(image, limits, **kw)


def layer_image(base: Any, entries: list[Any], tmp: Path) -> tuple[bytes, list[tuple[str, Path | None]]]:
    """The config and layers of an image: `base` (an image's Docker inspect, or None) and one
    more layer of `entries` (tar entries of `evaluator.images`), as the harness makes images."""
    from evaluator.images import CREATED, image_config, write_layer

    layer = tmp / "layer.tar"
    with layer.open("wb") as out:
        diff_id = write_layer(entries, out)
    below = list(base["RootFS"]["Layers"]) if base else []
    config = dict(base["Config"] or {}) if base else {}
    diff_ids = [*below, diff_id]
    raw = image_config(diff_ids, config, [{"created": CREATED}] * len(diff_ids), "amd64")
    return raw, [*((d, None) for d in below), (diff_id, layer)]


def on_both(client: Any, sandboxes: DaemonlessSandboxes, tag: str, base_id: str | None,
            entries: list[Any], tmp: Path) -> tuple[str, str]:
    """The same image made on the Docker engine and in the daemonless store: both ids."""
    from evaluator.images._layer import load_image

    base = client.api.inspect_image(base_id) if base_id else None
    if base_id:
        bring(sandboxes, base_id)
    config, layers = layer_image(base, entries, tmp)
    return (load_image(client, tag, config, layers), sandboxes.store.add(config, layers, [tag]))


ROOTLESS_USER = os.environ.get("EVAL_PODMAN_ROOTLESS_USER", "evalpodman")


def rootless_user() -> pwd.struct_passwd:
    """The user with subordinate ids that `.ci/podman-up` makes (rootless podman's, too)."""
    if os.geteuid() != 0:
        unavailable("needs root, to start a harness as a user that is not")
    try:
        user = pwd.getpwnam(ROOTLESS_USER)
    except KeyError:
        unavailable(f"no user {ROOTLESS_USER} (.ci/docker-up --tests makes it, with "
                    "subordinate ids)")
    if ROOTLESS_USER not in Path("/etc/subuid").read_text():
        unavailable(f"{ROOTLESS_USER} has no subordinate ids in /etc/subuid (.ci/podman-up)")
    return user


def as_user(argv: list[str], *, env: dict[str, str], cwd: Path, timeout: float = 600,
            reach: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run `argv` as the rootless user, with nothing of root's (no capability, its own
    groups), where this checkout, its interpreter and `reach` can be read at their own paths
    even below a folder only root may enter (/root, /tmp/pytest-of-root): a harness started by a
    user who is not root, as on a cluster."""
    user = rootless_user()
    return subprocess.run(user_argv(argv, (cwd, *reach)),
                          env={**env, "HOME": env.get("HOME", user.pw_dir)}, cwd="/", text=True,
                          capture_output=True, timeout=timeout)


def user_argv(argv: list[str], reach: tuple[Path, ...] = ()) -> list[str]:
    """`argv` as `as_user` runs it (started from root, with cwd "/"), for a process that
    outlives the call: a Ray node of the user's."""
    user = rootless_user()
    paths = [REPO, Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve(),
             *(Path(p) for p in sys.path if p.endswith("site-packages")), *reach]
    script = _reachable(paths)
    drop = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
            "--inh-caps=-all", "--"]
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            script + ' && exec "$@"', "sh", *drop, *argv]


def _reachable(paths: list[Path]) -> str:
    """Shell that, in a private mount namespace, covers every folder others may not enter on
    the way to `paths` with a tmpfs others may, and binds back what is below it on the way."""
    locked: dict[Path, set[str]] = {}
    for path in paths:
        path = path.absolute()
        for parent in reversed(path.parents):
            child = path.relative_to(parent).parts[0] if path != parent else None
            if child is not None and parent != Path("/") and not os.stat(parent).st_mode & 0o001:
                locked.setdefault(parent, set()).add(child)
    steps = ["set -e", "stash=$(mktemp -d)"]
    for i, folder in enumerate(sorted(locked, key=lambda p: len(p.parts))):
        q = shlex.quote(str(folder))
        steps += [f"mkdir $stash/{i}", f"mount --bind {q} $stash/{i}",
                  f"mount -t tmpfs -o mode=755 tmpfs {q}"]
        for child in sorted(locked[folder]):
            c = shlex.quote(child)
            kind = "mkdir" if (folder / child).is_dir() else "touch"
            steps += [f"{kind} {q}/{c}", f"mount --bind $stash/{i}/{c} {q}/{c}"]
    return " && ".join(steps)


def as_nobody(code: str) -> subprocess.CompletedProcess[str]:
    """Run Python `code` as uid/gid 65534 (nobody), with this checkout and its packages, and a
    fresh folder of its own as its HOME and XDG cache: a harness that is not root."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        unavailable("needs root and util-linux's setpriv to start a non-root harness")
    with tempfile.TemporaryDirectory(prefix="evaluator-nobody-") as home:
        os.chown(home, NOBODY, NOBODY)
        return _as(NOBODY, code, Path(home))


def _as(uid: int, code: str, home: Path) -> subprocess.CompletedProcess[str]:
    # Only CAP_DAC_READ_SEARCH kept: the venv's interpreter may lie under root's home (pyenv).
    # It reads and searches, never writes, chowns or mounts: what is refused stays refused.
    drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all,+dac_read_search", "--ambient-caps=-all,+dac_read_search",
            "--bounding-set=-all,+dac_read_search", "--no-new-privs", "--"]
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "XDG_CACHE_HOME": str(home),
           "PYTHONPATH": os.pathsep.join([str(REPO), *site])}
    return subprocess.run([*drop, sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
