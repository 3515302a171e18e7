"""A sandbox as every backend gives it: commands run one at a time under a shell wrapper that
ends each one at its timeout and every process of the sandbox user it left once it ends; a
deadline for the whole sandbox; a disk watch; files in and out through exec'd `tar` and `head`
(no backend's file API sees the tmpfs mounts where writable data lives).

What runs the commands is the backend's `Machine` (the seam): a container of a Docker-API engine
(`docker`, `podman`) or the daemonless backend's folders and namespaces (`daemonless`).
"""

from __future__ import annotations

import io
import tarfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath
from types import TracebackType
from typing import Protocol, Self

from evaluator.errors import SandboxError
from evaluator.sandbox._removal import remove_later
from evaluator.sandbox._stream import RawExec
from evaluator.sandbox._types import ExecResult, SandboxLimits

# `timeout` SIGKILLs the command's process group at the deadline; once the command ends, `kill
# -1` ends every other process of the sandbox user (a fork bomb's survivors, a forgotten
# `server &`, a daemon that left the group with `setsid`), so no exec outlives itself. PID 1 runs
# as another uid, out of reach. `exec 2>&1` interleaves stdout and stderr as they were written.
_WRAPPER = (
    'exec 2>&1; timeout -s KILL "$0" /bin/sh -c "$1" & pid=$!; wait "$pid"; rc=$?; '
    'kill -KILL -1 2>/dev/null; exit "$rc"'
)

# The in-container timeout normally ends an exec; the host waits this much longer before it
# gives up on the stream (the daemon itself lingers up to 2s for background writers).
_GRACE_S = 10.0
_HELPER_TIMEOUT_S = 300.0
_READ_DEFAULT = 10_000_000
# How often the disk (and, where no cgroup counts it, the memory) of a sandbox is measured.
WATCH_INTERVAL_S = 0.5


class Machine(Protocol):
    """What runs one sandbox's commands: the backend's side of `ExecSandbox`."""

    id: str  # the sandbox's id (a container's, or a daemonless sandbox's folder name)
    short_id: str

    def run(self, argv: list[str], *, deadline: float, limit: int, user: str, workdir: str,
            env: dict[str, str] | None, stdin: Iterable[bytes] | None) -> RawExec:
        """Run `argv` until it ends or `deadline` (time.monotonic) passes, keeping `limit`
        bytes of each stream; SandboxError when the backend failed (not the command)."""
        ...

    def kill(self) -> None:
        """Stop everything of the sandbox now (nothing is left running); safe to repeat.
        SandboxError when the backend could not."""
        ...

    def remove(self) -> None:
        """Remove what is left of it (after `kill`, on the removal thread); failures are said,
        not raised: leftover cleanup takes what stays."""
        ...


class ExecSandbox:
    """One sandbox of any backend; its backend's `Sandboxes.open` makes it."""

    def __init__(
        self,
        machine: Machine,
        limits: SandboxLimits,
        *,
        user: str,
        workdir: str,
        on_close: Callable[[ExecSandbox], None],
        disk_used: Callable[[], int | None] | None = None,
        prelude: str = "",
        unset: tuple[str, ...] = (),
    ) -> None:
        self.machine = machine
        self.limits = limits
        self.user = user
        self.workdir = workdir
        self._on_close = on_close
        # Shell run before each exec's wrapper, and variables it removes unless the exec sets
        # them: what an engine cannot set on the container itself (podman: the file-size
        # limit, the variables it adds; see `podman`).
        self._prelude, self._unset = prelude, unset
        self._deadline = time.monotonic() + limits.sandbox_timeout_s
        self._lock = threading.Lock()
        # One exec at a time: each ends every process of the sandbox user when it finishes.
        self._exec_lock = threading.Lock()
        self._closed = False
        self._dead: str | None = None
        self._dying: str | None = None  # set before the kill, so no new exec starts meanwhile
        self._expired = False  # killed at its sandbox deadline (not for its disk)
        self._killed = threading.Event()
        self._watchdog = threading.Timer(limits.sandbox_timeout_s, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()
        self._stop_watch = threading.Event()
        self._disk_used = disk_used
        self._disk_full = False
        if disk_used is not None:
            threading.Thread(target=self._watch_disk, name="sandbox-disk", daemon=True).start()

    @property
    def container_id(self) -> str:
        return self.machine.id

    def exec(
        self,
        cmd: str,
        *,
        timeout_s: float | None = None,
        workdir: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
    ) -> ExecResult:
        """Run `cmd` with /bin/sh; past the timeout its process group is killed (exit 137)."""
        timeout = self.limits.exec_timeout_s if timeout_s is None else timeout_s
        if timeout <= 0:
            raise ValueError(f"timeout_s must be positive, got {timeout}")
        budget = min(timeout, self._remaining())
        started = time.monotonic()
        unset = [v for v in self._unset if v not in (env or {})]
        wrapper = self._prelude + (f"unset {' '.join(unset)}; " if unset else "") + _WRAPPER
        raw = self._run(
            ["/bin/sh", "-c", wrapper, f"{budget:.3f}", cmd],
            deadline=started + budget + _GRACE_S,
            limit=self.limits.output_limit_bytes,
            user=user,
            workdir=workdir,
            env=env,
        )
        exit_code = raw.exit_code
        if raw.overran and exit_code is None:
            self._kill(f"an exec outlived its {budget:.0f}s timeout and could not be stopped")
        if exit_code is None:
            exit_code = 137
        # Also at every exec's end, not only at the watcher's ticks: what an exec wrote past the
        # cap in less than a tick never reaches the next command (or a patch, or a grade).
        if self._over_disk():
            exit_code = 137
            raw.stdout.feed(f"\n[sandbox killed: {self._dead}]\n".encode())
        elapsed = time.monotonic() - started
        timed_out = (
            raw.overran or self._expired or (exit_code in (124, 137) and elapsed >= budget)
        )
        out = raw.stdout.value() + raw.stderr.value()
        return ExecResult(
            exit_code=exit_code,
            output=out.decode("utf-8", errors="replace"),
            timed_out=timed_out,
            truncated=raw.stdout.truncated or raw.stderr.truncated,
            duration_s=elapsed,
        )

    def put_files(self, files: dict[str, bytes], *, mode: int = 0o644) -> None:
        """Write files at absolute paths, owned by the sandbox user; parents are created."""
        buf = io.BytesIO()
        now = time.time()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path, data in files.items():
                info = tarfile.TarInfo(_relative(path))
                info.size, info.mode, info.mtime = len(data), mode, now
                tar.addfile(info, io.BytesIO(data))
        raw = self._extract(_chunks(buf.getvalue()), "/")
        if raw.exit_code != 0:
            detail = raw.stderr.value().decode("utf-8", errors="replace").strip()
            raise SandboxError(f"writing {sorted(files)} into the sandbox failed: {detail}")

    def read_file(self, path: str, max_bytes: int = _READ_DEFAULT) -> bytes:
        """The first `max_bytes` bytes of the file at `path`; FileNotFoundError if it is absent."""
        _relative(path)
        raw = self._helper(
            [
                "/bin/sh",
                "-c",
                '[ -e "$1" ] || exit 3; exec head -c "$0" -- "$1"',
                str(max_bytes),
                path,
            ],
            limit=max_bytes,
        )
        if raw.exit_code == 3:
            raise FileNotFoundError(f"{path} does not exist in the sandbox")
        if raw.exit_code != 0:
            detail = raw.stderr.value().decode("utf-8", errors="replace").strip()
            raise SandboxError(f"reading {path} from the sandbox failed: {detail}")
        return raw.stdout.value()

    def _extract(self, tar_chunks: Iterable[bytes], directory: str, strip: int = 0) -> RawExec:
        """Unpack a tar stream into `directory` as the sandbox user, keeping modes."""
        argv = ["tar", "-x", "-p", "--no-same-owner", "-f", "-", "-C", directory]
        if strip:
            argv.append(f"--strip-components={strip}")
        return self._helper(argv, limit=64_000, stdin=tar_chunks)

    def close(self) -> None:
        """Stop the sandbox now and remove it in the background; safe to call repeatedly."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._watchdog.cancel()
        self._stop_watch.set()
        try:
            self.machine.kill()
        except SandboxError:
            self._on_close(self)
            raise
        remove_later(self.machine, lambda: self._on_close(self))

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _helper(
        self, argv: list[str], *, limit: int, stdin: Iterable[bytes] | None = None
    ) -> RawExec:
        budget = min(_HELPER_TIMEOUT_S, self._remaining())
        raw = self._run(argv, deadline=time.monotonic() + budget, limit=limit, stdin=stdin)
        if raw.overran:
            raise SandboxError(f"{argv[0]} in the sandbox did not finish within {budget:.0f}s")
        return raw

    def _run(
        self,
        argv: list[str],
        *,
        deadline: float,
        limit: int,
        user: str | None = None,
        workdir: str | None = None,
        env: dict[str, str] | None = None,
        stdin: Iterable[bytes] | None = None,
    ) -> RawExec:
        try:
            with self._exec_lock:
                return self.machine.run(argv, deadline=deadline, limit=limit,
                                        user=user or self.user, workdir=workdir or self.workdir,
                                        env=env, stdin=stdin)
        except SandboxError:
            self._check_usable()  # an exec that failed because the sandbox was killed says so
            raise

    def _remaining(self) -> float:
        self._check_usable()
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            # The watchdog timer may not have fired yet; kill now so callers never see it alive.
            self._expire()
            self._check_usable()
        return remaining

    def restart_clock(self, limits: SandboxLimits) -> None:
        """Count the deadline from now under `limits` (the same caps, a timeout no longer than
        the one it was opened with, less the time it has lived): a warm pool opens sandboxes
        ahead of their use, and the use must get exactly the lifetime a fresh one would."""
        lived = time.monotonic() - (self._deadline - self.limits.sandbox_timeout_s)
        if limits.sandbox_timeout_s > self.limits.sandbox_timeout_s - lived:
            raise ValueError(f"a sandbox that lived {lived:.1f}s of its "
                             f"{self.limits.sandbox_timeout_s:g}s cannot restart at "
                             f"{limits.sandbox_timeout_s:g}s")
        self._check_usable()
        self._watchdog.cancel()
        self.limits = limits
        self._deadline = time.monotonic() + limits.sandbox_timeout_s
        self._watchdog = threading.Timer(limits.sandbox_timeout_s, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()

    def _check_usable(self) -> None:
        if self._closed:
            raise SandboxError(f"sandbox {self.machine.short_id} is closed")
        if self._dying is not None:
            self._killed.wait(30)  # whoever sees the reason also sees a dead container
        reason = self._dead or self._dying
        if reason is not None:
            raise SandboxError(f"sandbox {self.machine.short_id} is unusable: {reason}")

    def _watch_disk(self) -> None:
        """Kill the sandbox once what it wrote holds more than disk_mb (overlay, watch modes)."""
        while not self._stop_watch.wait(WATCH_INTERVAL_S):
            if self._over_disk():
                return

    def _over_disk(self) -> bool:
        """Kill the sandbox if it holds more than disk_mb; True once it was killed for that."""
        if self._disk_used is None or self._dead is not None:
            return self._disk_full
        cap = self.limits.disk_mb << 20
        # Room for the file system's own blocks (extent trees, folders): one file stopped at the
        # file-size limit, itself exactly disk_mb, must leave the sandbox usable.
        if (self._disk_used() or 0) <= cap + cap // 64 + (1 << 20):
            return False  # None (a busy engine) too: asked again at the next tick
        self._disk_full = True
        self._kill(f"it wrote more than its disk_mb of {self.limits.disk_mb} MiB")
        return True

    def _expire(self) -> None:
        self._expired = True
        self._kill(f"it reached its sandbox_timeout_s of {self.limits.sandbox_timeout_s:g}s")

    def _kill(self, reason: str) -> None:
        self._dying = reason
        try:
            self.machine.kill()
        except SandboxError:
            pass  # close() or cleanup_leftovers removes what is left
        # Marked only once killed, so whoever sees the reason also sees a dead container.
        self._dead = reason
        self._killed.set()


def _relative(path: str) -> str:
    posix = PurePosixPath(path)
    if not posix.is_absolute() or ".." in posix.parts or posix == PurePosixPath("/"):
        raise ValueError(f"sandbox paths must be absolute files without '..', got {path!r}")
    return posix.as_posix().lstrip("/")


def _chunks(data: bytes, size: int = 1 << 20) -> Iterable[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))
