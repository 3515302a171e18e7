"""The daemonless backend's caps on cgroup v2, checked in a guest of tests/vm.py (as root there):

- image: the task's image, from the archive `docker save` wrote, unpacked into a store of the
  guest's own (on an ext4 disk of its own);
- hierarchy, record: the hierarchy is cgroup v2 with memory, pids and cpu, and the backend's
  record says so;
- caps: each sandbox's cgroup holds its caps (memory.max, memory.swap.max 0, pids.max, cpu.max);
- fork bomb, memory, timeout, own processes: a fork bomb meets `pids` and its exec ends, 400 MB
  fail under a 128 MB cap, a sleep past its timeout is killed, and each of two sandboxes gets
  its own processes;
- closed: once the sandboxes close their cgroups empty within seconds (the time is said), and
  the cgroups are gone once their removal ran;
- gold and empty: the task's gold patch resolves and the empty patch does not (the grader's
  whole path: seal, canaries, guard, report).

Then the same checks but the grade again (named `as a user: ...`) for a harness that is not root: the rootless
user of .ci/podman-up, in a cgroup delegated to it (`DELEGATED`, owned by it, as systemd's
`Delegate=yes` makes one) and in its own user namespace (`evaluator userns --`), with a store of
its own.

`run` (on the host) writes what the guest needs into a folder, boots the guest, which runs
`python -m tests.cgroup_v2 FOLDER`, and returns each check's line.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MARK = "CGROUP-V2-CHECK "
_EACH = ("image", "hierarchy", "record", "caps", "fork bomb", "memory", "timeout",
         "own processes", "closed", "gold and empty")
AS_USER = "as a user: "
# The user's harness leaves out the grade: its execs join their cgroups as the checks' do, and
# grading without root is checked on the host (tests/pipeline/test_backends_e2e.py).
CHECKS = (*_EACH, *(AS_USER + c for c in _EACH if c != "gold and empty"))
DELEGATED = "/sys/fs/cgroup/delegated-to-the-user"
# The stores, on the guest's ext4 disk: the guest's /tmp is an overlay (the host's files under
# it), whose files cannot carry overlayfs' own trusted.* xattrs, and its tmpfs keeps no user.*
# ones (Linux 6.1), which a store without root marks opaque folders with.
_DISK = "/mnt"
_FORKS = ("python3 -c \"import os, time\nn = 0\nwhile n < 200:\n    try:\n        pid = os.fork()\n"
          "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(3)\n"
          "        os._exit(0)\n    n += 1\nprint('forked', n)\"")
_CAPS = {"memory.max": str(128 << 20), "memory.swap.max": "0", "pids.max": "40",
         "cpu.max": "50000 100000"}


# --- on the host ----------------------------------------------------------------------------

def run(spec: Any, hidden: dict[str, bytes], gold: bytes, work: Path, *,
        kvm: bool = False) -> tuple[list[dict[str, Any]], str]:
    """(each check's result, the guest's console) for grading `spec` (a GradeSpec whose image
    is on the Docker engine) with `hidden` and `gold`; the guest reads `work`."""
    from tests import vm

    subprocess.run(["docker", "save", "-o", str(work / "image.tar"), spec.image], check=True)
    (work / "image.tar").chmod(0o644)
    work.chmod(0o755)  # the user's harness reads it too
    (work / "spec.json").write_text(json.dumps(dataclasses.asdict(spec)))
    (work / "gold.patch").write_bytes(gold)
    for rel, data in hidden.items():
        (work / "hidden" / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / "hidden" / rel).write_bytes(data)
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "HOME": "/tmp", "XDG_CACHE_HOME": "/tmp/cache", "PYTHONDONTWRITEBYTECODE": "1",
           "EVAL_DAEMONLESS_ROOT": f"{_DISK}/daemonless", "EVAL_SANDBOX_BACKEND": "daemonless"}
    command = (f"mount /dev/vda {_DISK} && cd {shlex.quote(str(REPO))} && env "
               + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
               + f" {shlex.quote(sys.executable)} -m tests.cgroup_v2 {shlex.quote(str(work))}")
    console = vm.boot(command, work, kvm=kvm, disk_mb=4096)
    found = [json.loads(line.split(MARK, 1)[1]) for line in console.splitlines() if MARK in line]
    return found, console


# --- in the guest ---------------------------------------------------------------------------

_PREFIX = ""  # AS_USER in the user's harness


def _say(check: str, ok: bool, detail: Any = "") -> None:
    print(MARK + json.dumps({"check": _PREFIX + check, "ok": bool(ok),
                             "detail": str(detail)[:600]}), flush=True)


def _spec(path: Path) -> Any:
    from evaluator.grading import GradeSpec
    from evaluator.sandbox import SandboxLimits

    fields = json.loads(path.read_text())
    return GradeSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()
                        if k != "limits"}, limits=SandboxLimits(**fields["limits"]))


def _procs(group: Path) -> list[str]:
    try:
        return (group / "cgroup.procs").read_text().split()
    except (FileNotFoundError, ProcessLookupError):
        return []
    except OSError as exc:  # ENODEV: the group was being removed as it was read (it is empty)
        if exc.errno == errno.ENODEV:
            return []
        raise


def guest(work: Path) -> None:
    from evaluator.grading import DockerGrader
    from evaluator.sandbox import DaemonlessSandboxes, SandboxLimits
    from evaluator.sandbox._removal import drain

    sandboxes = DaemonlessSandboxes()
    started = time.monotonic()
    loaded = sandboxes.store.load_file(work / "image.tar")
    _say("image", loaded, f"{loaded} unpacked in {time.monotonic() - started:.0f} s")
    where = sandboxes.hierarchy
    _say("hierarchy", where.kind == "cgroup v2" and (not _PREFIX or str(where.parents[0])
                                                    .startswith(DELEGATED + "/")),
         f"{where.describe()} in {where.parents}")
    record = sandboxes.backend().to_record()
    _say("record", "cgroup v2 (memory, pids, cpu)" in record.get("detail", ""), record)
    spec = _spec(work / "spec.json")
    limits = SandboxLimits(memory_mb=128, pids=40, cpus=0.5, exec_timeout_s=20)
    with sandboxes.open(spec.image, limits, purpose="test") as sb, \
            sandboxes.open(spec.image, limits, purpose="test") as other:
        (parent,) = sandboxes.hierarchy.parents
        groups = [p.parent for p in parent.glob("*/pids.max")]
        caps = {g.name: {f: (g / f).read_text().strip() for f in _CAPS} for g in groups}
        _say("caps", len(caps) == 2 and all(v == _CAPS for v in caps.values()), caps)
        bomb = sb.exec("b() { b | b & }; b; sleep 3", timeout_s=10)
        _say("fork bomb", bomb.duration_s < 30 and "Cannot fork" in bomb.output,
             f"{bomb.duration_s:.1f}s: {bomb.output[-200:]}")
        big = sb.exec("python3 -c \"b = b'x' * (400 << 20); print('allocated')\"")
        _say("memory", "allocated" not in big.output and big.exit_code != 0,
             f"exit {big.exit_code}: {big.output[-200:]}")
        slow = sb.exec("sleep 60", timeout_s=2)
        _say("timeout", slow.timed_out and slow.duration_s < 45, f"{slow.duration_s:.1f}s")
        forks: list[str] = []
        held = threading.Thread(target=lambda: forks.append(other.exec(_FORKS).output))
        held.start()
        time.sleep(1)
        mine = sb.exec(_FORKS).output
        held.join()
        counts = [int(m.group(1)) for o in (mine, *forks) if (m := re.search(r"forked (\d+)", o))]
        _say("own processes", len(counts) == 2 and all(30 <= n < 40 for n in counts),
             f"{mine.strip()} | {forks}")
    # Killed when closed (SIGKILL: a process leaves its cgroup once it has exited, a moment
    # later, longer in an emulated guest); the folders go on the removal thread (drained
    # here), which may take one away while it is read.
    closed = time.monotonic()
    while any(_procs(g) for g in groups) and time.monotonic() - closed < 10:
        time.sleep(0.05)
    running = {g.name: _procs(g) for g in groups}
    emptied = time.monotonic() - closed
    drain()
    left = [g.name for g in groups if g.exists()]
    _say("closed", len(groups) == 2 and not any(running.values()) and not left,
         f"empty {emptied:.2f}s after close, still in them: {running}; cgroups left after "
         f"removal: {left}")
    if _PREFIX:
        return
    hidden = {p.relative_to(work / "hidden").as_posix(): p.read_bytes()
              for p in (work / "hidden").rglob("*") if p.is_file()}
    grader = DockerGrader(sandboxes)
    gold = grader.grade(spec, (work / "gold.patch").read_bytes(), hidden)
    empty = grader.grade(spec, b"", hidden)
    _say("gold and empty", gold.resolved and not empty.resolved,
         f"gold {gold.outcome} {gold.detail[:200]}; empty {empty.outcome}")


def guest_as_user(work: Path) -> None:
    """The checks again, by the rootless user's harness in a cgroup delegated to it."""
    from tests.daemonless import rootless_user, user_argv

    user = rootless_user()
    store = Path(_DISK) / "user-daemonless"
    store.mkdir()
    os.chown(store, user.pw_uid, user.pw_gid)
    delegated = Path(DELEGATED)
    delegated.mkdir()
    for path in (delegated, *(delegated / f for f in ("cgroup.procs", "cgroup.threads",
                                                        "cgroup.subtree_control"))):
        os.chown(path, user.pw_uid, user.pw_gid)
    env = {**os.environ, "HOME": "/tmp", "XDG_CACHE_HOME": "/tmp/user-cache",
           "EVAL_DAEMONLESS_ROOT": str(store), "PYTHONPATH": str(REPO)}
    harness = user_argv([sys.executable, "-m", "evaluator", "userns", "--", sys.executable, "-m",
                         "tests.cgroup_v2", str(work), "--user"], (work,))
    # Into the delegated cgroup first, as `systemd-run --user --scope -p Delegate=yes` starts one.
    subprocess.run(["sh", "-c", f'echo $$ > {DELEGATED}/cgroup.procs && exec "$@"', "sh",
                    *harness], env=env, check=False)


if __name__ == "__main__":
    user = sys.argv[2:] == ["--user"]
    _PREFIX = AS_USER if user else ""
    try:
        guest(Path(sys.argv[1]))
        if not user:
            guest_as_user(Path(sys.argv[1]))
    except BaseException:
        _say("guest", False, traceback.format_exc()[-580:])  # the console keeps only a tail
        raise
