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
import errno
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

from evaluator.console import say
from evaluator.sandbox._exec import WATCH_INTERVAL_S

_SHM_MB = 64  # Docker's and podman's default /dev/shm
_said: set[str] = set()
_said_lock = threading.Lock()


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


def held(members: list[int], tmpfs: list[str]) -> Held:
    """The memory of the processes `members` (host pids of one sandbox's PID namespace; its
    PID 1 is never the one to kill) and of its tmpfs mounts, `tmpfs` (paths inside it)."""
    total, largest, most = 0, None, -1
    for pid in members:
        anon = _anonymous(pid)
        total += anon
        if anon > most and not _first(pid):
            largest, most = pid, anon
    for path in tmpfs:
        with contextlib.suppress(OSError):
            st = os.statvfs(f"/proc/{members[0]}/root{path}")
            total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return Held(total, largest)


def _first(pid: int) -> bool:
    """Whether `pid` is PID 1 of its own namespace (the last of its NSpid)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return line.split()[-1] == "1"
    return False


def _started(pid: int) -> str:
    """When process `pid` started (field 22 of /proc/pid/stat), "" once it is gone."""
    with contextlib.suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19]
    return ""


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
    """Kill the largest process of the sandbox whose PID namespace has inode `pidns` while it
    holds more than `cap` bytes (see the module's doc). `tmpfs`: its tmpfs mounts, as paths
    inside it. It ends by itself once no process of that namespace is left; OSError when this
    harness sees none of them to begin with (a harness in a PID namespace of its own)."""

    def __init__(self, name: str, pidns: int, tmpfs: list[str], cap: int) -> None:
        self._name, self._pidns, self._cap, self._tmpfs = name, pidns, cap, tmpfs
        members = _members(pidns)
        if not members:
            raise OSError(errno.ESRCH, "no process of its PID namespace is visible here",
                          f"pid:[{pidns}]")
        # The namespace's PID 1 as (host pid, start time): an inode of a freed namespace is
        # given to the next one, so a watch that outlived its sandbox would otherwise count,
        # and kill in, another sandbox with another cap.
        self._init = next(((p, _started(p)) for p in members if _first(p)), None)
        self._stop = threading.Event()
        threading.Thread(target=self._run, name="sandbox-memory", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL_S):
            members = _members(self._pidns)
            if not members:
                return  # the sandbox is gone
            if self._init is not None and (self._init[0] not in members
                                           or _started(self._init[0]) != self._init[1]):
                return  # its PID 1 is gone: the inode now names another sandbox's namespace
            now = held(members, self._tmpfs)
            if now.total > self._cap and now.largest is not None:
                with contextlib.suppress(OSError):
                    os.kill(now.largest, signal.SIGKILL)
                say(f"evaluator: sandbox {self._name} held {now.total >> 20} MiB, past its "
                    f"memory_mb of {self._cap >> 20}: killed its largest process", err=True)


def say_once(key: str, line: str) -> None:
    """Say `line` on stderr, once per `key` in this process."""
    with _said_lock:
        if key in _said:
            return
        _said.add(key)
    say(line, err=True)
