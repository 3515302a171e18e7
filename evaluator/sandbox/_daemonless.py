"""The daemonless backend: sandboxes with no container engine at all, for hosts (clusters, CI
runners) where no Docker daemon may run.

Images are fetched by digest and kept unpacked per layer (`_oci`); each exec of a sandbox is a
fresh set of namespaces under bubblewrap over the sandbox's own folders (`_bwrap`), in the
sandbox's cgroup or under rlimits (`_cgroups`). What a sandbox guarantees is the Docker
backend's: no network (a loopback of its own), a read-only root, a copy-on-write workdir over the
image's own layers (nothing copied; its upper folder, /tmp and the home are the sandbox's and
count toward `disk_mb`, which no single file may pass and past which the sandbox is killed, as
the Docker backend's `overlay` mode does), CPU, memory and process caps, each exec's timeout and
the sandbox's deadline, no capabilities, and every process gone when its exec ends. The sandbox
user cannot outlive or stop what keeps it: between execs nothing runs, and an exec's PID 1 is
bubblewrap's init, tied to the harness (`--die-with-parent`).

It needs root, or a user namespace of the harness's own that maps the user's subordinate ids
(`_userns`; docs/daemonless.md, "Without root"), util-linux
(`unshare`, `setpriv`, `nsenter`, `mount`), bubblewrap, skopeo and GNU tar. Sandboxes' folders
live under `settings.daemonless_root`/sandboxes with their owner's labels; a sandbox whose
harness died is removed by the next run's leftover cleanup (nothing of it still runs).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import stat
import subprocess
import threading
import time
from pathlib import Path, PurePosixPath
from typing import Any

from evaluator.console import say
from evaluator.errors import BadInputError, InfraError, SandboxError
from evaluator.filelock import exclusive
from evaluator.images import (
    CREATED,
    SCRATCH,
    SEAL_SCRIPT,
    TASK_USER,
    TASK_WORKDIR,
    image_config,
    parse_history,
    seal_failed,
    seal_tag,
    tree_entries,
    write_layer,
)
from evaluator.sandbox import _bwrap as bw
from evaluator.sandbox import _cgroups as cg
from evaluator.sandbox import _registry, _userns
from evaluator.sandbox._accounts import account_of
from evaluator.sandbox._docker import DockerSandbox
from evaluator.sandbox._keeper import user_namespace
from evaluator.sandbox._leftovers import _abandoned, managed_labels
from evaluator.sandbox._oci import ImageStore, StoredImage
from evaluator.sandbox._overlay import holding, used_bytes
from evaluator.sandbox._overlay import opaque as is_opaque
from evaluator.sandbox._stream import RawExec
from evaluator.sandbox._types import Backend, SandboxLimits
from evaluator.settings import settings

_TOOLS = ("bwrap", "unshare", "setpriv", "nsenter", "mount", "tar")
_LABEL_MARGIN_S = 60
_SETUP_TIMEOUT_S = 60.0
# Where each exec's view is mounted (`_bwrap`): a folder the sandbox user can reach whatever the
# store's folders' modes (bubblewrap sets its mounts up as that user).
_VIEWS = Path("/tmp")
_HOSTS = (b"127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
          b"fe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\n"
          b"ff02::2\tip6-allrouters\n")
# The seal script's own needs (see `evaluator.images`): read everything, write its scratch
# folder keeping the image's owners.
_SEAL_CAPS = ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER")
_SEAL_LIMITS = SandboxLimits(cpus=float(os.cpu_count() or 1), memory_mb=1 << 16, pids=1 << 15,
                             disk_mb=1 << 20, exec_timeout_s=3600, sandbox_timeout_s=3700,
                             output_limit_bytes=32 << 20)
_cleaned: set[Path] = set()
_cleaned_lock = threading.Lock()


class DaemonlessSandboxes:
    """Opens daemonless sandboxes (the `Sandboxes` of this backend); the first open in a process
    removes earlier runs' leftovers."""

    name = "daemonless"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or settings.daemonless_root
        self.store = ImageStore(self.root / "images")
        self._hierarchy: cg.Hierarchy | None = None
        self._version: str | None = None

    @property
    def images(self) -> ImageStore:
        return self.store

    @property
    def hierarchy(self) -> cg.Hierarchy:
        if self._hierarchy is None:
            self._hierarchy = cg.hierarchy()
        return self._hierarchy

    def backend(self) -> Backend:
        if self._version is None:
            self._version = _bwrap_version()
        detail = self.hierarchy.describe()
        if not _userns.initial():
            detail += f"; {_userns.describe()}"
        return Backend(self.name, self._version, disk="overlay", detail=detail)

    def alive(self) -> bool:
        return os.geteuid() == 0 and all(shutil.which(t) for t in _TOOLS)

    def open(
        self,
        image: str,
        limits: SandboxLimits,
        *,
        user: str = TASK_USER,
        workdir: str = TASK_WORKDIR,
        purpose: str = "",
        base_commit: str | None = None,
    ) -> DaemonlessSandbox:
        """A fresh sandbox from the stored `image` (an id or a reference; never pulled here);
        with `base_commit`, from its seal, as on Docker (`evaluator.images.sealed_image`)."""
        _check_workdir(workdir)
        _check_host()
        self._cleanup_once()
        stored = self.store.require(image)
        if base_commit is not None:
            stored = self._sealed(stored, workdir, base_commit)
        return self._open(stored, limits, user=user, workdir=workdir, purpose=purpose)

    def cleanup_leftovers(self) -> int:
        """Remove the folders and cgroups of sandboxes whose owner is gone or overdue."""
        removed = 0
        folders = self._dir()
        for scratch in list(folders.iterdir()):
            try:
                labels = json.loads((scratch / "labels.json").read_text())
            except (OSError, ValueError):
                try:
                    made = scratch.stat().st_mtime
                except FileNotFoundError:  # closed and removed meanwhile by its owner
                    continue
                labels = {"evaluator.deadline": str(int(made) + _LABEL_MARGIN_S)}
            if not _abandoned(labels):
                continue
            cg.remove(cg.leftovers(self.hierarchy).get(scratch.name, ()))
            with contextlib.suppress(OSError, ValueError):  # before its folder: none is lost
                _rmdir(Path((scratch / "view").read_text()))
            shutil.rmtree(scratch, ignore_errors=True)
            removed += 1
        for name, cgroups in cg.leftovers(self.hierarchy).items():
            if not (folders / name).exists():
                cg.remove(cgroups)
        return removed

    # --- opening ----------------------------------------------------------------------------
    def _open(self, stored: StoredImage, limits: SandboxLimits, *, user: str, workdir: str,
              purpose: str, seal: bool = False) -> DaemonlessSandbox:
        stack = list(reversed(stored.layers))  # topmost first
        passwd, group = _text(stack, "/etc/passwd"), _text(stack, "/etc/group")
        # A workdir reached through a symlink is overlaid where it points (as Docker mounts it).
        mounted = _resolve(stack, workdir, stored.id)
        workdir_layers = _workdir_layers(stack, mounted, stored.id)
        account = account_of(passwd, group, user, stored.id, bool(workdir_layers))
        sid = f"evaluator-{secrets.token_hex(8)}"
        # The sandbox's folder (with what it wrote: a grade's hidden tests too) is the harness's
        # user's alone, even once its harness is dead; each exec reaches it through its view.
        scratch = self._dir() / sid
        scratch.mkdir(mode=0o700)
        labels = managed_labels(purpose, limits.sandbox_timeout_s + _LABEL_MARGIN_S)
        (scratch / "labels.json").write_text(json.dumps(labels))
        view = _VIEWS / f"{sid}-view"
        cgroup: cg.Cgroup | None = None
        userns = -1
        try:
            view.mkdir(mode=0o755)  # /tmp is sticky: nobody else removes or replaces it
            (scratch / "view").write_text(str(view))
            home = account.home or "/"
            _folders(scratch, stack, [] if seal else workdir_layers, account.uid, account.gid,
                     [mounted, home, "/tmp", "/proc", "/dev", *([SCRATCH] if seal else [])])
            if self.hierarchy.kind != "rlimits":
                cgroup = cg.Cgroup(self.hierarchy, sid, limits)
            userns = user_namespace(time.monotonic() + _SETUP_TIMEOUT_S)
            rel = mounted.strip("/")
            layout = bw.Layout(
                scratch=scratch, view=view, layers=self.store.root / "layers",
                lowers=tuple(layer.name for layer in stack), workdir=mounted,
                workdir_lowers=tuple(f"{layer.name}/{rel}" for layer in workdir_layers)
                if workdir_layers else None,
                env=_env(stored), userns=userns, cgroup_procs=cgroup.procs if cgroup else (),
                rlimits=cg.rlimit_shell(limits, self.hierarchy.kind == "rlimits"),
                writable_root=seal, caps=_SEAL_CAPS if seal else ())
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            if userns >= 0:
                os.close(userns)
            shutil.rmtree(scratch, ignore_errors=True)
            _rmdir(view)
            raise
        sandbox = DaemonlessSandbox(
            _Handle(sid, layout, cgroup), layout, (passwd, group, stored.id), limits,
            user=user, workdir=workdir,
            on_close=_registry.unregister,
            disk_used=lambda _sb: sum(used_bytes(str(p)) for p in layout.writable()))
        _registry.register(sandbox)
        return sandbox

    def _sealed(self, stored: StoredImage, workdir: str, base: str) -> StoredImage:
        """The image's seal: its repository at `base`, nothing later (see `evaluator.images`)."""
        tag = seal_tag(stored.id, workdir, base)
        found = self.store.get(tag)
        if found is not None:
            return found
        with exclusive(self.root / "seals" / f"{tag.rpartition(':')[2][:24]}.lock"):
            found = self.store.get(tag)
            if found is None:
                found = self._seal(stored, workdir, base, tag)
        return found

    def _seal(self, stored: StoredImage, workdir: str, base: str, tag: str) -> StoredImage:
        started = time.monotonic()
        with self._open(stored, _SEAL_LIMITS, user="0:0", workdir=workdir, purpose="seal",
                        seal=True) as sb:
            out_dir = sb.layout.scratch / "upper" / SCRATCH.strip("/")
            raw = sb._run(["/bin/sh", "-c", SEAL_SCRIPT, "seal", "seal", workdir, base, SCRATCH],
                          deadline=time.monotonic() + _SEAL_LIMITS.exec_timeout_s,
                          limit=_SEAL_LIMITS.output_limit_bytes)
            out = (raw.stdout.value() + raw.stderr.value()).decode("utf-8", errors="replace")
            if raw.exit_code == 10:
                self.store.tag(tag, stored.id)
                return stored
            if raw.exit_code != 0:
                seal_failed(-1 if raw.exit_code is None else raw.exit_code, out, stored.id,
                            workdir, base, "sealing the repository")
            sealed_id = self._seal_image(stored, out_dir / "layer", workdir, base, tag)
        history = parse_history(out)
        say(f"evaluator: sealed {workdir} of {stored.id[:19]} at {base[:12]} in "
            f"{time.monotonic() - started:.1f}s ({len(history.findings)} finding(s) hidden)")
        return self.store.require(sealed_id)

    def _seal_image(self, stored: StoredImage, layer: Path, workdir: str, base: str,
                    tag: str) -> str:
        tar = layer.parent / "layer.tar"
        with tar.open("wb") as f:
            diff_id = write_layer(tree_entries(layer), f)
        body = stored.config
        config = dict(body.get("config") or {})
        config["Labels"] = {**(config.get("Labels") or {}), "evaluator.sealed-from": stored.id,
                            "evaluator.sealed-base": base, "evaluator.sealed-workdir": workdir}
        diff_ids = list(body["rootfs"]["diff_ids"])
        history = [*(body.get("history") or []),
                   {"created": CREATED, "created_by": f"evaluator seal: {workdir} at {base}"}]
        raw = image_config(diff_ids + [diff_id], config, history,
                           str(body.get("architecture") or "amd64"))
        layers: list[tuple[str, Path | None]] = [(d, None) for d in diff_ids]
        return self.store.add(raw, [*layers, (diff_id, tar)], [tag])

    def _cleanup_once(self) -> None:
        with _cleaned_lock:
            if self.root in _cleaned:
                return
            _cleaned.add(self.root)
        self.cleanup_leftovers()

    def _dir(self) -> Path:
        """The sandboxes' own folders: the harness's user's alone."""
        path = self.root / "sandboxes"
        path.mkdir(parents=True, exist_ok=True)
        if stat.S_IMODE(path.stat().st_mode) != 0o700:
            os.chmod(path, 0o700)  # a store made before the folders were closed to others
        return path


class DaemonlessSandbox(DockerSandbox):
    """One daemonless sandbox: the Docker backend's sandbox (exec wrapper, timeouts, deadline,
    disk watch, files in and out through exec'd `tar` and `head`) over bubblewrap execs."""

    def __init__(self, handle: _Handle, layout: bw.Layout, accounts: tuple[str, str, str],
                 limits: SandboxLimits, *, user: str, workdir: str, on_close: Any,
                 disk_used: Any) -> None:
        self.layout = layout
        self._accounts = accounts
        self._who: dict[str, bw.Who] = {}
        super().__init__(None, handle, limits, user=user, workdir=workdir,
                         on_close=on_close, disk_used=disk_used)

    def _run(self, argv: list[str], *, deadline: float, limit: int, user: str | None = None,
             workdir: str | None = None, env: dict[str, str] | None = None,
             stdin: Any = None) -> RawExec:
        who = self._resolve(user or self.user)
        try:
            with self._exec_lock:
                return bw.run(self.layout, who, argv, deadline=deadline, limit=limit,
                              workdir=workdir or self.workdir, env=env, stdin=stdin)
        except SandboxError:
            self._check_usable()
            raise

    def _resolve(self, user: str) -> bw.Who:
        if user not in self._who:
            account = account_of(*self._accounts[:2], user, self._accounts[2])
            self._who[user] = bw.Who(account.uid, account.gid, account.home or "/")
        return self._who[user]

    def layer_bytes(self) -> int | None:
        return sum(used_bytes(str(p)) for p in self.layout.writable())


class _Handle:
    """What `DockerSandbox` calls its container: the sandbox's folders, execs and cgroup."""

    def __init__(self, sid: str, layout: bw.Layout, cgroup: cg.Cgroup | None) -> None:
        self.id = sid
        self.short_id = sid.removeprefix("evaluator-")[:12]
        self._layout = layout
        self._cgroup = cgroup

    def kill(self) -> None:
        bw.stop(self._layout)
        if self._cgroup is not None:
            self._cgroup.kill()

    def remove(self, force: bool = True) -> None:
        """Kill what runs and remove the folders, cgroup and user namespace (on the removal
        thread)."""
        self.kill()
        layout = self._layout
        if layout.userns >= 0:
            fd, layout.userns = layout.userns, -1
            os.close(fd)
        try:
            if self._cgroup is not None:
                self._cgroup.remove()
            _rmdir(layout.view)
            shutil.rmtree(layout.scratch)
        except OSError as e:
            say(f"evaluator: could not remove sandbox {self.id} (the next run's leftover "
                f"cleanup will): {e}", err=True)


# --- the image's files, read on the host through its layers ----------------------------------
def _find(stack: list[Path], path: str) -> Path | None:
    """The file or folder `path` of the merged layers (topmost first), or None: absent,
    whited out, or behind a symlink."""
    parts = PurePosixPath(path).parts[1:]
    if not parts:
        return stack[0] if stack else None
    for diff in stack:
        here, opaque = diff, False
        for i, part in enumerate(parts):
            here = here / part
            try:
                st = here.lstat()
            except OSError:
                break
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                return None
            if i == len(parts) - 1:
                return here
            if not stat.S_ISDIR(st.st_mode):
                return None
            opaque = opaque or is_opaque(here)
        if opaque:
            return None
    return None


def _text(stack: list[Path], path: str) -> str:
    found = _find(stack, path)
    if found is None or not found.is_file() or found.is_symlink():
        return ""
    return found.read_text(errors="replace")


def _resolve(stack: list[Path], path: str, image: str) -> str:
    """`path` with every symlink the image has on the way followed, inside the image (never
    the host's): where a mount at `path` lands."""
    done, todo = PurePosixPath("/"), list(PurePosixPath(path).parts[1:])
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in (".", ""):
            continue
        here = done.parent if part == ".." else done / part
        found = _find(stack, str(here))
        if found is None or not found.is_symlink():
            done = here
            continue
        hops += 1
        if hops > 40:
            raise BadInputError(f"{path} of image {image[:19]}: too many levels of symlinks")
        target = PurePosixPath(os.readlink(found))
        todo = [*target.parts[1:]] + todo if target.is_absolute() else [*target.parts] + todo
        if target.is_absolute():
            done = PurePosixPath("/")
    if done == PurePosixPath("/"):
        raise BadInputError(f"workdir {path} of image {image[:19]} is the root folder")
    return str(done)


def _workdir_layers(stack: list[Path], workdir: str, image: str) -> list[Path]:
    found = _find(stack, workdir)
    if found is not None and not found.is_dir():
        raise BadInputError(f"workdir {workdir} of image {image[:19]} is a file, not a folder")
    if any(c in workdir for c in ":,\\"):
        raise BadInputError(f"workdir {workdir!r} holds a character overlay options cannot carry")
    return holding(stack, workdir) if found is not None else []


def _folders(scratch: Path, stack: list[Path], workdir_layers: list[Path], uid: int, gid: int,
             mountpoints: list[str]) -> None:
    """The sandbox's writable folders (`mountpoints[0]` is the workdir), and `mp`: the top
    layer of its root, with /etc/hosts and whatever mount point the image lacks (owned and moded
    as the image's own parents)."""
    for name in ("root", "wd", "work"):
        (scratch / name).mkdir()
    bw.ensure([scratch / "tmp"], uid=0, gid=0, mode=0o1777)
    bw.ensure([scratch / "home", scratch / "plain"], uid=uid, gid=gid, mode=0o755)
    upper = scratch / "upper"
    upper.mkdir()
    if workdir_layers:
        # The merged folder takes the upper folder's owner and mode: the image's, not root's.
        top = (workdir_layers[0] / mountpoints[0].strip("/")).lstat()
        os.chown(upper, top.st_uid, top.st_gid)
        os.chmod(upper, stat.S_IMODE(top.st_mode))
    mp = scratch / "mp"
    mp.mkdir()
    for path in ["/etc", *mountpoints]:
        _mirror(mp, stack, path)
    (mp / "etc" / "hosts").write_bytes(_HOSTS)
    (mp / "etc" / "hostname").write_bytes(b"sandbox\n")


def _mirror(mp: Path, stack: list[Path], path: str) -> None:
    """Make folder `path` in `mp` unless the image has it, parents as the image has them."""
    if path == "/":
        return
    found = _find(stack, path)
    if found is not None and found.is_dir() and not found.is_symlink() and path != "/etc":
        return
    parts = PurePosixPath(path).parts[1:]
    for i in range(1, len(parts) + 1):
        rel = "/" + "/".join(parts[:i])
        here = mp / rel.lstrip("/")
        if here.exists():
            continue
        image_dir = _find(stack, rel)
        here.mkdir()
        if image_dir is not None and image_dir.is_dir() and not image_dir.is_symlink():
            st = image_dir.lstat()
            os.chown(here, st.st_uid, st.st_gid)
            os.chmod(here, stat.S_IMODE(st.st_mode))
        else:
            os.chmod(here, 0o755)


def _env(stored: StoredImage) -> tuple[tuple[str, str], ...]:
    pairs = [tuple(e.split("=", 1)) for e in stored.env if "=" in e]
    if not any(k == "PATH" for k, _ in pairs):
        pairs.insert(0, ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"))
    return tuple((k, v) for k, v in pairs)


def _rmdir(folder: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        folder.rmdir()


def _check_workdir(workdir: str) -> None:
    if not PurePosixPath(workdir).is_absolute() or PurePosixPath(workdir) == PurePosixPath("/"):
        raise BadInputError(f"workdir {workdir!r} must be an absolute path below /")


def _check_host() -> None:
    if os.geteuid() != 0:
        raise InfraError(_userns.refusal())
    missing = [t for t in _TOOLS if shutil.which(t) is None]
    if missing:
        raise InfraError(f"the daemonless backend needs {', '.join(missing)} (apt-get install "
                         "bubblewrap util-linux mount tar)")


def _bwrap_version() -> str:
    try:
        out = subprocess.run(["bwrap", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InfraError(f"bubblewrap is not usable: {e} (apt-get install bubblewrap)") from e
    return out.stdout.strip().rpartition(" ")[2] or "?"
