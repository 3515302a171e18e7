"""One exec of a daemonless sandbox: a fresh set of namespaces under bubblewrap, over the
sandbox's own folders.

Nothing of a daemonless sandbox runs between its execs: what it keeps is folders on the host (the
workdir's upper layer, /tmp, the home: only the harness's user can enter them) and a user
namespace the harness made for it (`_keeper`). Each exec is one process tree that starts and
ends:

1. PID 1: a keeper the harness starts in a new PID namespace inside the sandbox's user namespace,
   as a uid of its own (`_keeper.Keeper`). Nothing of the sandbox can signal it, trace it or read
   its environment; the exec's processes are born in its namespace, and the kernel kills every
   one of them when it is killed at the exec's end.
2. `unshare --mount` gives the exec a private mount namespace, where one `mount -a` of the
   sandbox's fstab mounts a small tmpfs, the view, at a folder every uid may enter, and in it:
   the root (a read-only overlay of the image's layer folders), the workdir (an overlay of the
   same layers' workdir folders, with the sandbox's upper folder), the sandbox's /tmp and home,
   and a 64 MiB /dev/shm. Mounts nobody else sees, gone with the exec. Before that, the exec
   joins the sandbox's cgroup (`_cgroups`).
3. `nsenter` enters the sandbox's user namespace as its root, `setpriv` makes the sandbox user
   the real uid and gid (root stays the effective uid), and `bwrap` (which takes that for its
   setuid mode: it sets the uid up only once it has done its privileged steps) joins PID 1's
   namespace, makes new network (loopback only), IPC, UTS and cgroup namespaces, binds the view's
   folders, mounts /proc (/proc/sys and /proc/sysrq-trigger read-only: uid 0 needs no capability
   to write the host's sysctls) and a minimal /dev, drops every capability, sets no_new_privs,
   installs the seccomp filter (`_seccomp`: Docker's default) and runs the command as the
   sandbox user. `--die-with-parent` ties it to the harness.
4. Once the command ends, the harness kills PID 1: no process outlives its exec, as the Docker
   backend's `kill -1` after each exec ensures there.

The harness's own environment reaches none of these processes: each helper starts with `PATH`
alone, and the command with the image's variables.
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.errors import SandboxError
from evaluator.sandbox import _seccomp
from evaluator.sandbox._memory import MemoryWatch
from evaluator.sandbox._stream import Capture, RawExec
from evaluator.sandbox.daemonless._keeper import HOST_ENV, Keeper, keeper_id
from evaluator.sandbox.daemonless._userns import overlay_xattrs

_SHM_BYTES = 64 << 20  # Docker's default /dev/shm
_SETUP_TIMEOUT_S = 60.0
# mount(2) takes at most a page of options.
_MAX_OPTIONS = 4000
# What stays read-only in /proc (as runc keeps it): uid 0 writes the host's sysctls and sysrq
# with no capability at all.
_PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")


@dataclass(frozen=True)
class Who:
    """Whom an exec runs as, and where its home is."""

    uid: int
    gid: int
    home: str


@dataclass
class Layout:
    """A sandbox's folders on the host, and how each exec assembles them."""

    scratch: Path  # the sandbox's own folder, the harness's user's alone (see `_sandboxes`)
    view: Path  # an empty folder any uid may enter: each exec's view is mounted there
    layers: Path  # the store's layer folder; lowers are named relative to it
    lowers: tuple[str, ...]  # the root's layers, topmost first (names under `layers`)
    workdir: str
    workdir_lowers: tuple[str, ...] | None  # the workdir's layers; None: a plain folder
    env: tuple[tuple[str, str], ...]  # the image's environment
    userns: int = -1  # the sandbox's user namespace (`_keeper.user_namespace`), held open
    cgroup_procs: tuple[str, ...] = ()
    rlimits: str = ""  # shell that sets the rlimits each exec runs under
    memory_cap: int = 0  # bytes the harness counts each exec's processes against (rlimits)
    # The seal's own run: the root writable (into `upper`), the workdir part of it, so a file
    # made in the workdir's repository moves to the seal's folder (one file system).
    writable_root: bool = False
    caps: tuple[str, ...] = ()  # capabilities kept (only the seal's own run has any)
    hostname: str = "sandbox"
    running: dict[int, tuple[subprocess.Popen[bytes], Keeper]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopped: bool = False
    _fstabs: dict[str, Path] = field(default_factory=dict)

    def writable(self) -> list[Path]:
        """What the sandbox can write, on the host: what its disk cap counts."""
        return [self.scratch / "upper", self.scratch / "tmp", self.scratch / "home",
                self.scratch / "plain"]

    def fstab(self, home: str | None) -> Path:
        """The mounts of an exec's view for a user whose home is bound at `home` (None: none
        of its own), written once into the sandbox's folder."""
        key = home or ""
        if key not in self._fstabs:
            path = self.scratch / f"fstab-{len(self._fstabs)}"
            path.write_text(_fstab(self, home))
            self._fstabs[key] = path
        return self._fstabs[key]


def run(layout: Layout, who: Who, argv: list[str], *, deadline: float, limit: int,
        workdir: str, env: dict[str, str] | None,
        stdin: Iterable[bytes] | None = None) -> RawExec:
    """Run `argv` in the sandbox until it ends or `deadline` (time.monotonic) passes."""
    started = time.monotonic()
    with layout.lock:
        if layout.stopped:
            raise SandboxError("the sandbox was stopped")
    keeper = Keeper(layout.userns, keeper_id(who.uid), min(deadline, started + _SETUP_TIMEOUT_S))
    watch = None
    if layout.memory_cap:  # no cgroup: the harness counts the exec's processes (`_memory`)
        try:
            watch = MemoryWatch(layout.scratch.name, os.fstat(keeper.pidns).st_ino, [],
                                layout.memory_cap)
        except BaseException:
            keeper.stop()
            raise
    filter_r, filter_w = os.pipe()
    try:
        os.write(filter_w, _seccomp.bpf())  # a few KiB: the pipe holds it whole
        os.close(filter_w)
        filter_w = -1
        command = _command(layout, who, argv, workdir, env, pidns=keeper.pidns,
                           seccomp=filter_r)
        with layout.lock:
            if layout.stopped:
                raise SandboxError("the sandbox was stopped")
            try:
                proc = subprocess.Popen(
                    command, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=HOST_ENV,
                    pass_fds=(layout.userns, keeper.pidns, filter_r), start_new_session=True)
            except OSError as e:
                raise SandboxError(f"starting an exec of the sandbox ({e}): are util-linux "
                                   "and bubblewrap installed?") from e
            layout.running[proc.pid] = (proc, keeper)
    except BaseException:
        keeper.stop()
        if watch is not None:
            watch.stop()
        raise
    finally:
        os.close(filter_r)
        if filter_w >= 0:
            os.close(filter_w)
    out, err = Capture(limit), Capture(limit)
    try:
        overran = not _pump(proc, stdin, out, err, deadline)
        if not overran:  # its output closed; it may still run a while (up to its deadline)
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                overran = True
    finally:
        _kill(proc)
        code = proc.wait()
        keeper.stop()  # and with it every process the exec left
        if watch is not None:
            watch.stop()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        with layout.lock:
            layout.running.pop(proc.pid, None)
    # Past its deadline it was killed here, with everything it started: 137, as SIGKILL gives.
    exit_code = 137 if overran else (128 - code if code < 0 else code)
    return RawExec(exit_code, out, err, overran, time.monotonic() - started)


def stop(layout: Layout) -> None:
    """Kill the exec that runs now (if any) and let no other start."""
    with layout.lock:
        layout.stopped = True
        running = list(layout.running.values())
    for proc, keeper in running:
        _kill(proc)
        keeper.stop()


def _pump(proc: subprocess.Popen[bytes], stdin: Iterable[bytes] | None, out: Capture,
          err: Capture, deadline: float) -> bool:
    """Feed stdin and read stdout and stderr until both close; False if the deadline passed."""
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    feeder = _feed(proc, stdin, deadline) if stdin is not None else None
    try:
        open_streams = 2
        while open_streams:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            for key, _ in sel.select(min(remaining, 1.0)):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    sel.unregister(key.fileobj)
                    open_streams -= 1
                else:
                    key.data.feed(data)
        return True
    finally:
        sel.close()
        if feeder is not None:
            feeder.join(timeout=1)


def _feed(proc: subprocess.Popen[bytes], chunks: Iterable[bytes],
          deadline: float) -> threading.Thread:
    def write() -> None:
        assert proc.stdin is not None
        try:
            for chunk in chunks:
                if time.monotonic() > deadline:
                    break
                proc.stdin.write(chunk)
        except (BrokenPipeError, OSError, ValueError):
            pass
        finally:
            try:
                proc.stdin.close()  # end of input
            except (BrokenPipeError, OSError):
                pass

    thread = threading.Thread(target=write, name="sandbox-stdin", daemon=True)
    thread.start()
    return thread


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def _fstab(layout: Layout, home: str | None) -> str:
    """The view's mounts, in the order `mount -a` makes them (`X-mount.mkdir`: each mount
    point made in the view just mounted)."""
    s, v = layout.scratch, layout.view
    # In a user namespace, overlayfs reads user.overlay.* (the store's layout there), not trusted.*
    xattrs = overlay_xattrs()[1]
    root_opts = f"{xattrs}lowerdir={s / 'mp'}:{':'.join(layout.lowers)}"
    if layout.writable_root:
        root_opts += f",upperdir={s / 'upper'},workdir={s / 'work'}"
    else:
        root_opts = "ro," + root_opts
    if len(root_opts) > _MAX_OPTIONS:
        raise SandboxError(f"the image has too many layers ({len(layout.lowers)}) for one "
                           "overlay mount; squash it")
    rows = [("evaluator-view", v, "tmpfs", "mode=755,size=64k,nosuid,nodev"),
            ("overlay", v / "root", "overlay", f"{root_opts},X-mount.mkdir")]
    if layout.writable_root:
        pass  # the workdir is the root's own
    elif layout.workdir_lowers is not None:
        opts = (f"{xattrs}lowerdir={':'.join(layout.workdir_lowers)},upperdir={s / 'upper'},"
                f"workdir={s / 'work'}")
        rows.append(("overlay", v / "wd", "overlay", f"{opts},X-mount.mkdir"))
    else:
        rows.append((str(s / "plain"), v / "wd", "none", "bind,X-mount.mkdir"))
    rows.append((str(s / "tmp"), v / "tmp", "none", "bind,X-mount.mkdir"))
    if home is not None:
        rows.append((str(s / "home"), v / "home", "none", "bind,X-mount.mkdir"))
    rows.append(("evaluator-shm", v / "shm", "tmpfs",
                 f"mode=1777,size={_SHM_BYTES},nosuid,nodev,X-mount.mkdir"))
    return "".join(" ".join(_escape(str(f)) for f in (*row, "0", "0")) + "\n" for row in rows)


def _escape(field: str) -> str:
    """An fstab field: whitespace and backslashes as octal escapes."""
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in field)


def _home(layout: Layout, who: Who) -> str | None:
    """Where the sandbox's home folder is bound for `who` (None: its home is the workdir, /tmp
    or /, or below them)."""
    if who.home and who.home not in ("/", layout.workdir, "/tmp") and not who.home.startswith(
            (layout.workdir.rstrip("/") + "/", "/tmp/")):
        return who.home
    return None


def _command(layout: Layout, who: Who, argv: list[str], workdir: str,
             env: dict[str, str] | None, *, pidns: int, seccomp: int) -> list[str]:
    """The host command of one exec: see the module's doc."""
    q = shlex.quote
    v = layout.view
    home = _home(layout, who)
    steps = [f"echo $$ > {q(p)}" for p in layout.cgroup_procs]
    # Relative lower folders (short options) are the store's layer folders.
    steps.append(f"cd {q(str(layout.layers))}")
    steps.append(f"mount --fstab {q(str(layout.fstab(home)))} -a")
    binds = ["--bind" if layout.writable_root else "--ro-bind", str(v / "root"), "/"]
    if not layout.writable_root:
        binds += ["--bind", str(v / "wd"), layout.workdir]
    binds += ["--bind", str(v / "tmp"), "/tmp"]
    if home is not None:
        binds += ["--bind", str(v / "home"), home]
    proc = ["--proc", "/proc"]
    for name in _PROC_READ_ONLY:  # the host's own proc files: the same sysctls, read-only
        proc += ["--ro-bind-try", f"/proc/{name}", f"/proc/{name}"]
    variables = dict(layout.env)
    variables.update({"HOSTNAME": layout.hostname, "HOME": who.home or "/"})
    variables.update(env or {})
    setenv = [a for k, val in variables.items() for a in ("--setenv", k, val)]
    caps = [a for c in layout.caps for a in ("--cap-add", c)]
    bwrap = ["bwrap", "--die-with-parent", "--pidns", str(pidns), "--unshare-ipc",
             "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
             "--hostname", layout.hostname, *binds, *proc, "--dev", "/dev",
             "--bind", str(v / "shm"), "/dev/shm", "--remount-ro", "/dev", "--chdir", workdir,
             "--clearenv", *setenv, "--cap-drop", "ALL", *caps, "--seccomp", str(seccomp), "--",
             "/bin/sh", "-c", layout.rlimits + 'exec "$@"', "sh", *argv]
    # Root of the sandbox's namespace, then its user as the real ids: bwrap's setuid mode, which
    # does its privileged steps as root there and runs the command as that user.
    ids = ([f"--regid={who.gid}"] if who.uid == 0 else
           [f"--ruid={who.uid}", "--euid=0", f"--regid={who.gid}"])
    enter = ["nsenter", f"--user=/proc/self/fd/{layout.userns}", "--",
             "setpriv", *ids, "--clear-groups", "--"]
    steps.append("exec " + " ".join(q(a) for a in (*enter, *bwrap)))
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            " && ".join(steps)]


def ensure(paths: Iterable[Path], *, uid: int, gid: int, mode: int) -> None:
    for path in paths:
        path.mkdir(parents=True, exist_ok=True)
        os.chown(path, uid, gid)
        os.chmod(path, mode)
