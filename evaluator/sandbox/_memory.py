"""Memory a sandbox holds where no cgroup counts it (rootless podman on cgroup v1, or on cgroup v2
without the memory controller delegated to its user), counted by the harness instead.

Under a cgroup, the kernel charges every page of a sandbox to it, its tmpfs files included, and
past `memory_mb` kills the largest of its processes. Without one, RLIMIT_AS caps each process
alone (N processes hold N times the cap) and tmpfs pages count nowhere. So there:

- the sandbox's tmpfs mounts share `memory_mb` (`tmpfs_sizes`): together they can never hold
  more, whatever is written into them;
- a watch (`MemoryWatch`) adds up, every `WATCH_INTERVAL_S`, the anonymous memory of every
  process in the sandbox's PID namespace (proportional shares: pages two processes share after
  a fork count once) and what its tmpfs mounts hold, and past `memory_mb` kills the process
  holding the most, as the kernel's OOM killer does under a cgroup (the command that asked for
  the memory ends with 137; the sandbox stays usable). It overshoots by at most what the sandbox
  allocates in one interval.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

from evaluator.console import say
from evaluator.sandbox._disk import WATCH_INTERVAL_S

_SHM_MB = 64  # Docker's and podman's default /dev/shm


def shm_size(memory_mb: int) -> int:
    """/dev/shm's size in MiB: Docker's 64, within a quarter of `memory_mb`."""
    return max(min(_SHM_MB, memory_mb // 4), 1)


def tmpfs_size(memory_mb: int, disk_mb: int, places: int) -> int:
    """The size in MiB of each of `places` writable tmpfs mounts: with /dev/shm, no more than
    `memory_mb` in all."""
    return max(min(disk_mb, (memory_mb - shm_size(memory_mb)) // places), 1)


@dataclass(frozen=True)
class Held:
    """What a sandbox holds: bytes in all, and the pid of the process holding the most."""

    total: int
    largest: int | None


def held(pidns: int, tmpfs: list[str], skip: int = 0) -> Held:
    """The memory of the processes in the PID namespace of inode `pidns` (but `skip`) and of the
    tmpfs mounts at the host paths `tmpfs`."""
    total, largest, most = 0, None, -1
    for pid in _members(pidns):
        if pid == skip:
            continue
        anon = _anonymous(pid)
        total += anon
        if anon > most:
            largest, most = pid, anon
    for path in tmpfs:
        with contextlib.suppress(OSError):
            st = os.statvfs(path)
            total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return Held(total, largest)


def _members(pidns: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):  # gone, or another user's we may not inspect
                if os.stat(f"/proc/{entry.name}/ns/pid").st_ino == pidns:
                    found.append(int(entry.name))
    return found


def _anonymous(pid: int) -> int:
    """Process `pid`'s share of the anonymous memory it maps, in bytes (0 once it is gone)."""
    fallback = 0
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss_Anon:"):
                return int(line.split()[1]) << 10
            if line.startswith("Anonymous:"):  # kernels before 5.8 give no Pss_Anon
                fallback = int(line.split()[1]) << 10
    return fallback


class MemoryWatch:
    """Kill the largest process of a sandbox while it holds more than `cap` bytes (see the
    module's doc); it ends by itself once the sandbox's PID 1 (`init`, a host pid) is gone."""

    def __init__(self, name: str, init: int, tmpfs: list[str], cap: int) -> None:
        self._name, self._init, self._cap = name, init, cap
        self._tmpfs = [f"/proc/{init}/root{t}" for t in tmpfs]
        self._pidns = os.stat(f"/proc/{init}/ns/pid").st_ino
        self._stop = threading.Event()
        threading.Thread(target=self._run, name="sandbox-memory", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL_S):
            try:
                if os.stat(f"/proc/{self._init}/ns/pid").st_ino != self._pidns:
                    return  # its PID 1 is gone (and the pid maybe someone else's)
            except OSError:
                return
            now = held(self._pidns, self._tmpfs, skip=self._init)
            if now.total > self._cap and now.largest is not None:
                with contextlib.suppress(OSError):
                    os.kill(now.largest, signal.SIGKILL)
                say(f"evaluator: sandbox {self._name} held {now.total >> 20} MiB, past its "
                    f"memory_mb of {self._cap >> 20}: killed its largest process", err=True)
