"""One exec of a daemonless sandbox: a fresh set of namespaces under bubblewrap, over the
sandbox's own folders.

Nothing of a daemonless sandbox runs between its execs: what it keeps is folders on the host (the
workdir's upper layer, /tmp, the home), and each exec is one process tree that starts and ends:

1. `unshare --mount` gives the exec a private mount namespace, where the host's `mount` makes the
   root (a read-only overlay of the image's layer folders) and the workdir (an overlay of the
   same layers' workdir folders, with the sandbox's upper folder): mounts nobody else sees, gone
   with the exec. Before that, the exec joins the sandbox's cgroup (`_cgroups`).
2. `setpriv` makes it the sandbox user's uid (root stays root), and `bwrap` makes new user, PID,
   network (loopback only), IPC, UTS and cgroup namespaces, binds the root read-only and the
   writable folders, mounts /proc and a minimal /dev, drops every capability and sets no_new_privs.
   Its user namespace maps every uid to itself (the harness writes the maps while bwrap waits on
   `--userns-block-fd`), so the image's files keep their owners as on Docker, and creating more
   user namespaces inside is switched off (`max_user_namespaces` 0 there).
3. The command runs as PID 2 of its PID namespace under bwrap's own init as PID 1, which nothing
   inside can signal; once the command ends, init exits and the kernel kills whatever is left in
   the namespace (a forgotten `server &`, a `setsid` daemon, a fork bomb's survivors): no process
   outlives its exec, as the Docker backend's `kill -1` after each exec ensures there.
   `--die-with-parent` ties the whole tree to the harness: SIGKILL the harness and the kernel
   kills bwrap and with it the namespace, whoever is left to notice.
"""

from __future__ import annotations

import json
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
from evaluator.sandbox._stream import Capture, RawExec
from evaluator.sandbox._userns import identity, overlay_xattrs

_SHM_BYTES = 64 << 20  # Docker's default /dev/shm
_SETUP_TIMEOUT_S = 60.0
# mount(2) takes at most a page of options.
_MAX_OPTIONS = 4000


@dataclass(frozen=True)
class Who:
    """Whom an exec runs as, and where its home is."""

    uid: int
    gid: int
    home: str


@dataclass
class Layout:
    """A sandbox's folders on the host, and how each exec assembles them."""

    scratch: Path  # the sandbox's own folder (see `_daemonless`)
    layers: Path  # the store's layer folder; lowers are named relative to it
    lowers: tuple[str, ...]  # the root's layers, topmost first (names under `layers`)
    workdir: str
    workdir_lowers: tuple[str, ...] | None  # the workdir's layers; None: a plain folder
    env: tuple[tuple[str, str], ...]  # the image's environment
    cgroup_procs: tuple[str, ...] = ()
    rlimits: str = ""  # shell that sets the rlimits each exec runs under
    # The seal's own run: the root writable (into `upper`), the workdir part of it, so a file
    # made in the workdir's repository moves to the seal's folder (one file system).
    writable_root: bool = False
    caps: tuple[str, ...] = ()  # capabilities kept (only the seal's own run has any)
    hostname: str = "sandbox"
    running: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopped: bool = False

    @property
    def root(self) -> Path:
        return self.scratch / "root"

    @property
    def mountpoints(self) -> Path:
        return self.scratch / "mp"

    def writable(self) -> list[Path]:
        """What the sandbox can write, on the host: what its disk cap counts."""
        return [self.scratch / "upper", self.scratch / "tmp", self.scratch / "home",
                self.scratch / "plain"]


def run(layout: Layout, who: Who, argv: list[str], *, deadline: float, limit: int,
        workdir: str, env: dict[str, str] | None,
        stdin: Iterable[bytes] | None = None) -> RawExec:
    """Run `argv` in the sandbox until it ends or `deadline` (time.monotonic) passes."""
    started = time.monotonic()
    block_r, block_w = os.pipe()
    info_r, info_w = os.pipe()
    command = _command(layout, who, argv, workdir, env, block=block_r, info=info_w)
    with layout.lock:
        if layout.stopped:
            for fd in (block_r, block_w, info_r, info_w):
                os.close(fd)
            raise SandboxError("the sandbox was stopped")
        try:
            proc = subprocess.Popen(command, stdin=subprocess.PIPE if stdin is not None
                                    else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, pass_fds=(block_r, info_w),
                                    start_new_session=True)
        except OSError as e:
            for fd in (block_r, block_w, info_r, info_w):
                os.close(fd)
            raise SandboxError(f"starting an exec of the sandbox ({e}): are util-linux and "
                               "bubblewrap installed?") from e
        layout.running[proc.pid] = proc
    os.close(block_r)
    os.close(info_w)
    out, err = Capture(limit), Capture(limit)
    try:
        _release(proc, info_r, block_w, min(deadline, started + _SETUP_TIMEOUT_S), err)
        overran = not _pump(proc, stdin, out, err, deadline)
        if not overran:  # its output closed; it may still run a while (up to its deadline)
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                overran = True
    finally:
        _kill(proc)
        code = proc.wait()
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
    for proc in running:
        _kill(proc)


def _release(proc: subprocess.Popen[bytes], info_r: int, block_w: int, until: float,
             err: Capture) -> None:
    """Read bwrap's child pid, map its user namespace and switch more off, then let it go on."""
    try:
        info = _read_all(info_r, until)
        if not info:
            return  # it failed before bwrap ran: its stderr says why
        pid = int(json.loads(info)["child-pid"])
        # Every id the harness has mapped to itself: files keep their owners, and no id is
        # shared with the host under another name (all of them as root; in the harness's own
        # user namespace, its subordinate ids).
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w") as f:
                f.write(identity(name))
        no_more = subprocess.run(
            ["nsenter", f"--user=/proc/{pid}/ns/user", "--", "/bin/sh", "-c",
             "echo 0 > /proc/sys/user/max_user_namespaces"], capture_output=True, timeout=30)
        if no_more.returncode != 0:
            raise SandboxError("switching user namespaces off in the sandbox: "
                               + no_more.stderr.decode(errors="replace").strip())
        os.write(block_w, b"1")
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as e:
        _kill(proc)
        err.feed(f"\n[sandbox setup failed: {e}]\n".encode())
    finally:
        os.close(info_r)
        os.close(block_w)


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


def _read_all(fd: int, until: float) -> bytes:
    data = b""
    while True:
        remaining = until - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("bubblewrap did not start in time")
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        ready = sel.select(remaining)
        sel.close()
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return data
        data += chunk


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def _command(layout: Layout, who: Who, argv: list[str], workdir: str,
             env: dict[str, str] | None, *, block: int, info: int) -> list[str]:
    """The host command of one exec: see the module's doc."""
    q = shlex.quote
    s = layout.scratch
    steps = [f"echo $$ > {q(p)}" for p in layout.cgroup_procs]
    steps.append(f"cd {q(str(layout.layers))}")
    # In a user namespace, overlayfs reads user.overlay.* (the store's layout there), not trusted.*
    xattrs = overlay_xattrs()[1]
    root_opts = f"{xattrs}lowerdir={layout.mountpoints}:{':'.join(layout.lowers)}"
    if layout.writable_root:
        root_opts += f",upperdir={s / 'upper'},workdir={s / 'work'}"
    else:
        root_opts = "ro," + root_opts
    steps.append(f"mount -t overlay -o {q(root_opts)} overlay {q(str(layout.root))}")
    binds = ["--bind" if layout.writable_root else "--ro-bind", str(layout.root), "/"]
    if layout.writable_root:
        pass  # the workdir is the root's own
    elif layout.workdir_lowers is not None:
        opts = (f"{xattrs}lowerdir={':'.join(layout.workdir_lowers)},upperdir={s / 'upper'},"
                f"workdir={s / 'work'}")
        steps.append(f"mount -t overlay -o {q(opts)} overlay {q(str(s / 'wd'))}")
        binds += ["--bind", str(s / "wd"), layout.workdir]
    else:
        binds += ["--bind", str(s / "plain"), layout.workdir]
    binds += ["--bind", str(s / "tmp"), "/tmp"]
    if who.home and who.home not in ("/", layout.workdir, "/tmp") and not who.home.startswith(
            (layout.workdir.rstrip("/") + "/", "/tmp/")):
        binds += ["--bind", str(s / "home"), who.home]
    variables = dict(layout.env)
    variables.update({"HOSTNAME": layout.hostname, "HOME": who.home or "/"})
    variables.update(env or {})
    setenv = [a for k, v in variables.items() for a in ("--setenv", k, v)]
    caps = [a for c in layout.caps for a in ("--cap-add", c)]
    bwrap = ["bwrap", "--die-with-parent", "--unshare-all", "--unshare-user",
             "--userns-block-fd", str(block), "--info-fd", str(info),
             "--hostname", layout.hostname, *binds, "--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm",
             "--remount-ro", "/dev", "--chdir", workdir,
             "--clearenv", *setenv, "--cap-drop", "ALL", *caps, "--",
             "/bin/sh", "-c", layout.rlimits + 'exec "$@"', "sh", *argv]
    if who.uid != 0 or who.gid != 0:
        bwrap = ["setpriv", f"--reuid={who.uid}", f"--regid={who.gid}", "--clear-groups",
                 "--", *bwrap]
    steps.append("exec " + " ".join(q(a) for a in bwrap))
    script = " && ".join(steps)
    if len(root_opts) > _MAX_OPTIONS:
        raise SandboxError(f"the image has too many layers ({len(layout.lowers)}) for one "
                           "overlay mount; squash it")
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script]


def ensure(paths: Iterable[Path], *, uid: int, gid: int, mode: int) -> None:
    for path in paths:
        path.mkdir(parents=True, exist_ok=True)
        os.chown(path, uid, gid)
        os.chmod(path, mode)

