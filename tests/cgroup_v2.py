"""The daemonless backend's caps on cgroup v2, checked in a guest of tests/vm.py (as root there):

- image: the task's image, from the archive `docker save` wrote, unpacked into a store of the
  guest's own (a tmpfs);
- hierarchy, record: the hierarchy is cgroup v2 with memory, pids and cpu, and the backend's
  record says so;
- caps: each sandbox's cgroup holds its caps (memory.max, memory.swap.max 0, pids.max, cpu.max);
- fork bomb, memory, timeout, own processes: a fork bomb meets `pids` and its exec ends, 400 MB
  fail under a 128 MB cap, a sleep past its timeout is killed, and each of two sandboxes gets
  its own processes;
- closed: once the sandboxes close nothing of them runs, and their cgroups are gone once their
  removal ran;
- gold and empty: the task's gold patch resolves and the empty patch does not (the grader's
  whole path: seal, canaries, guard, report).

`run` (on the host) writes what the guest needs into a folder, boots the guest, which runs
`python -m tests.cgroup_v2 FOLDER`, and returns each check's line.
"""

from __future__ import annotations

import dataclasses
import json
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
CHECKS = ("image", "hierarchy", "record", "caps", "fork bomb", "memory", "timeout",
          "own processes", "closed", "gold and empty")
_FORKS = ("python3 -c \"import os, time\nn = 0\nwhile n < 200:\n    try:\n        pid = os.fork()\n"
          "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(3)\n"
          "        os._exit(0)\n    n += 1\nprint('forked', n)\"")
_CAPS = {"memory.max": str(128 << 20), "memory.swap.max": "0", "pids.max": "40",
         "cpu.max": "50000 100000"}


# --- on the host ----------------------------------------------------------------------------

def run(spec: Any, hidden: dict[str, bytes], gold: bytes, work: Path, *,
        kvm: bool = False) -> tuple[list[dict[str, Any]], str]:
    """(each check's result, the guest's console) for grading `spec` (a GradeSpec whose image
    is on the Docker engine) with `hidden` and `gold`; `work` must not lie under /tmp."""
    from tests import vm

    subprocess.run(["docker", "save", "-o", str(work / "image.tar"), spec.image], check=True)
    (work / "spec.json").write_text(json.dumps(dataclasses.asdict(spec)))
    (work / "gold.patch").write_bytes(gold)
    for rel, data in hidden.items():
        (work / "hidden" / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / "hidden" / rel).write_bytes(data)
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "HOME": "/tmp", "XDG_CACHE_HOME": "/tmp/cache", "PYTHONDONTWRITEBYTECODE": "1",
           "EVAL_DAEMONLESS_ROOT": "/tmp/daemonless", "EVAL_SANDBOX_BACKEND": "daemonless"}
    command = (f"cd {shlex.quote(str(REPO))} && env "
               + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
               + f" {shlex.quote(sys.executable)} -m tests.cgroup_v2 {shlex.quote(str(work))}")
    console = vm.boot(command, work, kvm=kvm)
    found = [json.loads(line.split(MARK, 1)[1]) for line in console.splitlines() if MARK in line]
    return found, console


# --- in the guest ---------------------------------------------------------------------------

def _say(check: str, ok: bool, detail: Any = "") -> None:
    print(MARK + json.dumps({"check": check, "ok": bool(ok), "detail": str(detail)[:600]}),
          flush=True)


def _spec(path: Path) -> Any:
    from evaluator.grading import GradeSpec
    from evaluator.sandbox import SandboxLimits

    fields = json.loads(path.read_text())
    return GradeSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()
                        if k != "limits"}, limits=SandboxLimits(**fields["limits"]))


def _procs(group: Path) -> list[str]:
    try:
        return (group / "cgroup.procs").read_text().split()
    except FileNotFoundError:
        return []


def guest(work: Path) -> None:
    from evaluator.grading import DockerGrader
    from evaluator.sandbox import DaemonlessSandboxes, SandboxLimits
    from evaluator.sandbox._removal import drain

    sandboxes = DaemonlessSandboxes()
    started = time.monotonic()
    loaded = sandboxes.store.load_file(work / "image.tar")
    _say("image", loaded, f"{loaded} unpacked in {time.monotonic() - started:.0f} s")
    _say("hierarchy", sandboxes.hierarchy.kind == "cgroup v2", sandboxes.hierarchy.describe())
    record = sandboxes.backend().to_record()
    _say("record", "cgroup v2 (memory, pids, cpu)" in record.get("detail", ""), record)
    spec = _spec(work / "spec.json")
    limits = SandboxLimits(memory_mb=128, pids=40, cpus=0.5, exec_timeout_s=20)
    with sandboxes.open(spec.image, limits, purpose="test") as sb, \
            sandboxes.open(spec.image, limits, purpose="test") as other:
        groups = [p.parent for p in Path("/sys/fs/cgroup/evaluator-daemonless").glob("*/pids.max")]
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
    # Killed at once when closed; the folders go on the removal thread (drained here), which
    # may take one away while it is read.
    running = {g.name: _procs(g) for g in groups}
    drain()
    left = [g.name for g in groups if g.exists()]
    _say("closed", len(groups) == 2 and not any(running.values()) and not left,
         f"running at close: {running}; cgroups left after removal: {left}")
    hidden = {p.relative_to(work / "hidden").as_posix(): p.read_bytes()
              for p in (work / "hidden").rglob("*") if p.is_file()}
    grader = DockerGrader(sandboxes)
    gold = grader.grade(spec, (work / "gold.patch").read_bytes(), hidden)
    empty = grader.grade(spec, b"", hidden)
    _say("gold and empty", gold.resolved and not empty.resolved,
         f"gold {gold.outcome} {gold.detail[:200]}; empty {empty.outcome}")


if __name__ == "__main__":
    try:
        guest(Path(sys.argv[1]))
    except BaseException:
        _say("guest", False, traceback.format_exc()[-580:])  # the console keeps only a tail
        raise
