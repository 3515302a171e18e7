"""The namespaces a daemonless sandbox's commands run in, made and owned by the harness, never by
the sandbox user, and what holds them.

- A user namespace per sandbox (`user_namespace`), made by the harness as root (or as root of
  its own namespace): every id mapped to itself, so the image's files keep their owners, and no
  user namespace can be made inside it (`max_user_namespaces` 0). Root owns it, so no process of
  the host is given capabilities in it by owning it; had the sandbox user's uid made it (as
  bubblewrap does when it runs as that uid), any host process of that uid could enter it and,
  through the identity map, override every file permission on the host.
- A PID namespace per exec, inside it, whose PID 1 is a keeper (`Keeper`): `sh` waiting on a
  `sleep` in a loop (each wait reaps whatever orphan the namespace hands it), run as a uid of its
  own, not the sandbox user's, with no capability and nothing of the harness's environment. No
  process of the sandbox can signal it, trace it or read its memory or environment. The harness
  kills it once the exec ends (or it dies with the harness: parent-death signals), and the
  kernel then kills every process left in the namespace.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time

from evaluator.errors import SandboxError
from evaluator.sandbox.daemonless._userns import identity

# What the harness's helpers run with: nothing of the harness's own environment (its API keys).
HOST_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LC_ALL": "C"}
# The keeper's uid and gid: another than the sandbox user's (`keeper_id`).
_KEEPER_IDS = (65534, 65533)
# Exec'd again once mapped: a process exec'd before its namespace had a map lost its
# capabilities there (it was nobody), and the sysctl needs CAP_SYS_RESOURCE.
_NO_MORE_NAMESPACES = ("read go && exec /bin/sh -c "
                       "'echo 0 > /proc/sys/user/max_user_namespaces && echo ok'")
_KEEP = ("echo ready; exec </dev/null >/dev/null 2>&1; trap '' HUP INT TERM; "
         "while :; do sleep 86400 & wait; done")


def user_namespace(until: float) -> int:
    """A new user namespace for one sandbox (see the module's doc): an open file of it, which
    keeps it while open."""
    proc = subprocess.Popen(["unshare", "--user", "--", "/bin/sh", "-c", _NO_MORE_NAMESPACES],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=HOST_ENV)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        mine = os.stat("/proc/self/ns/user").st_ino
        while os.stat(f"/proc/{proc.pid}/ns/user").st_ino == mine:
            if proc.poll() is not None or time.monotonic() > until:
                raise SandboxError("making the sandbox's user namespace: unshare "
                                   f"{'exited' if proc.poll() is not None else 'hung'}")
            time.sleep(0.0005)
        for kind in ("uid_map", "gid_map"):
            with open(f"/proc/{proc.pid}/{kind}", "w") as f:
                f.write(identity(kind))
        fd = os.open(f"/proc/{proc.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
        proc.stdin.write(b"go\n")
        proc.stdin.close()
        said = _line(proc, until)
        if said != b"ok":
            os.close(fd)
            raise SandboxError("switching user namespaces off in the sandbox's: "
                               + _said(proc, said))
        return fd
    except (OSError, ValueError) as e:
        raise SandboxError(f"making the sandbox's user namespace: {e}") from e
    finally:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def keeper_id(sandbox_uid: int) -> int:
    """The keeper's uid (and gid): one the sandbox user is not."""
    return next(k for k in _KEEPER_IDS if k != sandbox_uid)


class Keeper:
    """PID 1 of one exec's PID namespace, in the sandbox's user namespace `userns` (an fd)."""

    def __init__(self, userns: int, uid: int, until: float) -> None:
        keep = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--pdeathsig=KILL", "--",
                "/bin/sh", "-c", _KEEP]
        try:
            self._proc = subprocess.Popen(
                ["nsenter", f"--user=/proc/self/fd/{userns}", "--", "setpriv",
                 "--pdeathsig=KILL", "--", "unshare", "--pid", "--fork", "--kill-child=KILL",
                 "--", *keep],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(userns,), env=HOST_ENV, start_new_session=True)
        except OSError as e:
            raise SandboxError(f"starting the sandbox's PID 1 ({e}): are util-linux and "
                               "bubblewrap installed?") from e
        try:
            said = _line(self._proc, until)
            if said != b"ready":
                raise SandboxError("starting the sandbox's PID 1: " + _said(self._proc, said))
            # The namespace PID 1 made: what each of the exec's processes is born in.
            self.pidns = os.open(f"/proc/{self._proc.pid}/ns/pid_for_children",
                                 os.O_RDONLY | os.O_CLOEXEC)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Kill PID 1 (the kernel then kills every process of its namespace); idempotent."""
        with contextlib.suppress(OSError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.wait()
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        fd, self.pidns = getattr(self, "pidns", -1), -1
        if fd >= 0:
            os.close(fd)


def _line(proc: subprocess.Popen[bytes], until: float) -> bytes:
    """The first line `proc` writes to its stdout, without its newline; b"" if it wrote none by
    `until`."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    data = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while b"\n" not in data:
            remaining = until - time.monotonic()
            if remaining <= 0 or not sel.select(remaining):
                return b""
            chunk = os.read(fd, 256)
            if not chunk:
                break
            data += chunk
    return data.partition(b"\n")[0]


def _said(proc: subprocess.Popen[bytes], line: bytes) -> str:
    """What a helper that failed said (its stderr, once it is dead), for the error."""
    with contextlib.suppress(OSError):
        proc.kill()
    proc.wait()
    err = proc.stderr.read() if proc.stderr is not None else b""
    return (err or line or b"no answer").decode(errors="replace").strip()[-500:]
