"""Who owns a sandbox, and when it is no longer wanted: the labels every backend writes beside
each sandbox (a container's labels, a daemonless sandbox's labels.json), and how any later
process reads them.

An owner is named by where its pid means something: the kernel's boot id (one per machine and
boot) and the inode of its PID namespace, then the pid and its start time. Two harnesses that
share one engine from different machines, containers or `unshare --pid` namespaces never mistake
each other's pids; a sandbox whose owner cannot be judged from here is left to its deadline.
"""

from __future__ import annotations

import functools
import os
import time

MANAGED = "evaluator.managed"
OWNER = "evaluator.owner"
CREATED = "evaluator.created"
DEADLINE = "evaluator.deadline"
PURPOSE = "evaluator.purpose"


@functools.cache
def _where() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
        pidns = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""  # no /proc: no pid here can be judged, only deadlines
    return f"{boot}/{pidns}"


def owner_label() -> str:
    # Not cached with the rest: a forked worker is another owner.
    return f"{_where()}/{os.getpid()}"


def managed_labels(purpose: str, lifetime_s: float) -> dict[str, str]:
    """Labels that let any later process decide whether a container is still wanted."""
    now = time.time()
    return {
        MANAGED: "1",
        OWNER: owner_label(),
        CREATED: str(int(now)),
        DEADLINE: str(int(now + lifetime_s) + 1),
        PURPOSE: purpose,
    }


def judgeable(labels: dict[str, str]) -> bool:
    where, _, pid = labels.get(OWNER, "").rpartition("/")
    return bool(_where()) and where == _where() and pid.isdigit()


def older(labels: dict[str, str], age_s: float) -> bool:
    try:
        return float(labels.get(CREATED, "inf")) + age_s < time.time()
    except ValueError:
        return False


def abandoned(labels: dict[str, str]) -> bool:
    try:
        if float(labels.get(DEADLINE, "inf")) < time.time():
            return True
    except ValueError:
        pass
    if not judgeable(labels):
        # Another machine's, container's or PID namespace's process may be alive; only its
        # deadline can tell.
        return False
    return not alive(int(labels[OWNER].rpartition("/")[2]), labels.get(CREATED, ""))


def alive(pid: int, created: str = "") -> bool:
    """Is the owner still running? A zombie is not (a SIGKILLed worker can linger unreaped), and
    neither is a process that started after the container was made (its pid was reused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    started = _start_time(pid)
    if started is None:
        return True
    state, start_s = started
    if state == "Z":
        return False
    try:
        return start_s <= float(created) + 1
    except ValueError:
        return True


def _start_time(pid: int) -> tuple[str, float] | None:
    """(state, start time in Unix seconds) from /proc, or None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/stat") as f:
            boot = next(float(line.split()[1]) for line in f if line.startswith("btime"))
        return fields[0], boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None
