"""Opening daemonless sandboxes: sandboxes with no container engine at all, for hosts (clusters,
CI runners) where no Docker daemon may run.

Images are fetched by digest and kept unpacked per layer (`_oci`); each exec of a sandbox is a
fresh set of namespaces under bubblewrap over the sandbox's own folders (`_bwrap`, through the
`BwrapMachine`), in the sandbox's cgroup or under rlimits (`_cgroups`). What a sandbox
guarantees is the Docker backend's: no network (a loopback of its own), a read-only root, a
copy-on-write workdir over the image's own layers (nothing copied; its upper folder, /tmp and
the home are the sandbox's and count toward `disk_mb`, which no single file may pass and past
which the sandbox is killed, as the Docker backend's `overlay` mode does), CPU, memory and
process caps, each exec's timeout and the sandbox's deadline, no capabilities, Docker's seccomp
policy, and every process gone when its exec ends. The sandbox user cannot outlive or stop what
keeps it: between execs nothing runs, and an exec's PID 1 is the harness's keeper, of another
uid (`_keeper`).

It needs root, or a user namespace of the harness's own that maps the user's subordinate ids
(`_userns`; docs/daemonless.md, "Without root"), util-linux (`unshare`, `setpriv`, `nsenter`,
`mount`), bubblewrap, libseccomp, skopeo and GNU tar. Sandboxes' folders live under
`settings.daemonless_root`/sandboxes, the harness's user's alone, with their owner's labels; a
sandbox whose harness died is removed by the next run's leftover cleanup (nothing of it still
runs).
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

from evaluator.console import say
from evaluator.errors import BadInputError, InfraError
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
from evaluator.sandbox import _registry
from evaluator.sandbox._accounts import account_of
from evaluator.sandbox._exec import ExecSandbox
from evaluator.sandbox._labels import abandoned, managed_labels
from evaluator.sandbox._rlimits import rlimit_shell
from evaluator.sandbox._types import Backend, SandboxLimits
from evaluator.sandbox.daemonless import _bwrap as bw
from evaluator.sandbox.daemonless import _cgroups as cg
from evaluator.sandbox.daemonless import _image_files as files
from evaluator.sandbox.daemonless import _userns
from evaluator.sandbox.daemonless._keeper import user_namespace
from evaluator.sandbox.daemonless._machine import BwrapMachine
from evaluator.sandbox.daemonless._oci import ImageStore, StoredImage
from evaluator.settings import settings

_TOOLS = ("bwrap", "unshare", "setpriv", "nsenter", "mount", "tar")
_LABEL_MARGIN_S = 60
_SETUP_TIMEOUT_S = 60.0
# Where each exec's view is mounted (`_bwrap`): a folder the sandbox user can reach whatever the
# store's folders' modes (bubblewrap sets its mounts up as that user).
_VIEWS = Path("/tmp")
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
    ) -> ExecSandbox:
        """A fresh sandbox from the stored `image` (an id or a reference; never pulled here);
        with `base_commit`, from its seal, as on Docker (`evaluator.images.sealed_image`)."""
        _check_workdir(workdir)
        _check_host()
        self._cleanup_once()
        stored = self.store.require(image)
        if base_commit is not None:
            stored = self._sealed(stored, workdir, base_commit)
        return self._open(stored, limits, user=user, workdir=workdir, purpose=purpose)[0]

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
            if not abandoned(labels):
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
              purpose: str, seal: bool = False) -> tuple[ExecSandbox, BwrapMachine]:
        stack = list(reversed(stored.layers))  # topmost first
        passwd, group = files.text(stack, "/etc/passwd"), files.text(stack, "/etc/group")
        # A workdir reached through a symlink is overlaid where it points (as Docker mounts it).
        mounted = files.resolve(stack, workdir, stored.id)
        workdir_layers = files.workdir_layers(stack, mounted, stored.id)
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
            files.folders(scratch, stack, [] if seal else workdir_layers, account.uid, account.gid,
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
                env=files.env_of(stored), userns=userns, cgroup_procs=cgroup.procs if cgroup else (),
                rlimits=rlimit_shell(limits, self.hierarchy.kind == "rlimits"),
                memory_cap=limits.memory_mb << 20 if self.hierarchy.kind == "rlimits" else 0,
                writable_root=seal, caps=_SEAL_CAPS if seal else ())
        except BaseException:
            if cgroup is not None:
                cgroup.remove()
            if userns >= 0:
                os.close(userns)
            shutil.rmtree(scratch, ignore_errors=True)
            _rmdir(view)
            raise
        machine = BwrapMachine(sid, layout, cgroup, (passwd, group, stored.id))
        sandbox = ExecSandbox(machine, limits, user=user, workdir=workdir,
                              on_close=_registry.unregister, disk_used=machine.written)
        _registry.register(sandbox)
        return sandbox, machine

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
        sb, machine = self._open(stored, _SEAL_LIMITS, user="0:0", workdir=workdir,
                                 purpose="seal", seal=True)
        with sb:
            out_dir = machine.layout.scratch / "upper" / SCRATCH.strip("/")
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
