"""Is a worker still alive? A pid alone cannot say: the kernel reuses pids, so a worker is
named by its pid and its start time (field 22 of /proc/<pid>/stat)."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of `pid`, None when there is no such process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    rest = raw[raw.rindex(")") + 2:].split()
    return rest[0], rest[19]


def start_time(pid: int) -> str | None:
    """An opaque start time of `pid`; None where /proc is missing (liveness then uses the pid)."""
    found = _stat(pid)
    return found[1] if found else None


def alive(pid: int, started: str | None) -> bool:
    """Does the process that recorded (pid, started) still run? Zombies do not."""
    if not Path("/proc/self/stat").exists():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    found = _stat(pid)
    if found is None or found[0] in ("Z", "X"):
        return False
    return started is None or found[1] == started


def kill_leftovers(pid: int, started: str | None) -> None:
    """SIGKILL what is left of a dead worker's process group (its doit and doit's forks).

    A worker leads its own group, whose id is its pid. The kernel hands out no pid that is still
    some group's id, so with no process of that pid, or with our worker as a zombie, the group
    is ours; a live process with that pid and another start time is someone else's.
    """
    if pid <= 1:
        return  # killpg(0) is our own group, and 1 is init: never a worker's
    found = _stat(pid)
    if found is not None and not (found[0] in ("Z", "X") and found[1] == started):
        return  # alive, or another process's pid now
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
