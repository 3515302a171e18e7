"""What the daemonless backend does its own way: each exec's namespaces, its cgroup or rlimits,
a harness SIGKILLed mid-exec, leftovers. (The walls every backend shares are tested once per
backend: tests/sandbox/test_sandbox_*.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluator.sandbox import DaemonlessSandboxes, SandboxLimits, open_backend
from evaluator.sandbox._labels import owner_label
from tests.daemonless import DockerFed, as_nobody, bring
from tests.sandbox import hostile

pytestmark = pytest.mark.docker

_NOT_ROOT = (
    "import sys\n"
    "from pathlib import Path\n"
    "from evaluator.sandbox import DaemonlessSandboxes, SandboxLimits\n"
    "import tarfile\n"
    "from evaluator.images._layer import Entry\n"
    "from tests.daemonless import layer_image\n"
    "s = DaemonlessSandboxes()\n"
    "print(s.alive(), s.backend().detail)\n"
    "for step in (lambda: s.open('any', SandboxLimits()),\n"
    "             lambda: s.store.add(*layer_image(None, [Entry('a', tarfile.REGTYPE, 0o644, "
    "data=b'x')], Path.home()), [])):\n"
    "    try:\n"
    "        step()\n"
    "    except Exception as e:\n"
    "        print(type(e).__name__, e)\n"
)
_KILLED_MID_EXEC = (
    "import sys\n"
    "from tests.daemonless import DockerFed\n"
    "from evaluator.sandbox import SandboxLimits\n"
    "sb = DockerFed().open(sys.argv[1], SandboxLimits(), purpose='test')\n"
    "print(sb.container_id, flush=True)\n"
    "sb.exec('setsid sleep $((6000 + 1)) & sleep $((6000 + 2))', timeout_s=600)\n"
)


def _sleepers() -> list[str]:
    out = subprocess.run(["pgrep", "-f", "sleep 600[12]"], capture_output=True, text=True)
    return out.stdout.split()


def test_the_setting_names_it_and_records_say_how_it_caps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_SANDBOX_BACKEND", "daemonless")
    backend = open_backend().backend()
    assert backend.name == "daemonless" and backend.disk == "overlay"
    assert backend.version.count(".") == 2 and backend.detail.startswith(("cgroup", "rlimits"))


def test_each_exec_is_capped_by_the_sandbox_s_cgroup_or_else_its_rlimits(
        daemonless_sandboxes: DaemonlessSandboxes, base_image: str) -> None:
    # Never a skip: a host that delegates no cgroup gets the rlimits, and they are what is
    # checked there (the record says which; test_forced_rlimits_... checks they hold).
    where = daemonless_sandboxes.hierarchy
    limits = SandboxLimits(memory_mb=200, pids=77, cpus=0.5)
    with daemonless_sandboxes.open(base_image, limits, purpose="test") as sb:
        caps = {f.name: f.read_text().strip() for parent in where.parents
                for f in (parent / sb.container_id).iterdir()
                if f.name in ("memory.limit_in_bytes", "memory.max", "pids.max",
                              "cpu.cfs_quota_us", "cpu.max")}
        ulimits = sb.exec("ulimit -H -p; ulimit -H -v; sleep 1 & sleep 1 & wait; echo ok").output
    assert ulimits.endswith("ok\n")
    if where.kind == "rlimits":
        assert where.why_not and daemonless_sandboxes.backend().detail.startswith("rlimits (")
        assert ulimits.split()[:2] == ["77", str(200 << 10)], ulimits
        return
    assert caps.get("memory.max", caps.get("memory.limit_in_bytes")) == str(200 << 20)
    assert caps["pids.max"] == "77"
    assert caps.get("cpu.cfs_quota_us") == "50000" or caps.get("cpu.max") == "50000 100000"


def test_forced_rlimits_still_cap_memory_processes_and_file_size(
        monkeypatch: pytest.MonkeyPatch, base_image: str) -> None:
    monkeypatch.setenv("EVAL_DAEMONLESS_LIMITS", "rlimit")
    sandboxes = DockerFed()
    assert sandboxes.backend().detail.startswith("rlimits")
    with sandboxes.open(base_image, SandboxLimits(memory_mb=128, pids=40), purpose="test") as sb:
        big = sb.exec("python3 -c \"b = b'x' * (400 << 20); print('allocated')\"")
        bomb = sb.exec("for i in $(seq 80); do sleep 5 & done; echo started", timeout_s=10)
        after = sb.exec("ulimit -a; ls -d /proc/[0-9]* | wc -l")
        # Each under RLIMIT_AS, 200 MiB together: the harness counts them (`_memory`).
        hogs = hostile.run_python(sb, hostile.HOGS, "50", "4")
    assert "allocated" not in big.output and "MemoryError" in big.output
    held = hogs.split()
    assert int(held[held.index("held_mb") + 1]) <= 128, hogs
    assert "started" not in bomb.output and bomb.duration_s < 10
    assert "process              40" in after.output and int(after.output.split()[-1]) < 8


def test_no_namespaces_of_its_own_for_the_sandbox_user(daemonless_sandboxes: DaemonlessSandboxes,
                                                      base_image: str) -> None:
    with daemonless_sandboxes.open(base_image, SandboxLimits(), user="root", purpose="test") as sb:
        out = sb.exec("unshare -U true; unshare -r id; cat /proc/self/uid_map").output
    assert "unshare failed" in out and "uid=0" not in out
    assert out.split()[-3:] == ["0", "0", "4294967295"], out  # the image's owners, as on Docker


def test_a_killed_harness_s_exec_ends_with_it(daemonless_sandboxes: DaemonlessSandboxes,
                                             base_image: str) -> None:
    bring(daemonless_sandboxes, base_image)
    child = subprocess.Popen([sys.executable, "-c", _KILLED_MID_EXEC, base_image],
                             stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert child.stdout is not None
    sid = child.stdout.readline().strip()
    deadline = time.monotonic() + 60
    while len(_sleepers()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(_sleepers()) == 2, "the exec did not start"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    killed = time.monotonic()
    while _sleepers() and time.monotonic() - killed < 10:
        time.sleep(0.05)
    print(f"the exec's processes were gone {time.monotonic() - killed:.2f}s after the SIGKILL")
    assert _sleepers() == []
    assert daemonless_sandboxes.cleanup_leftovers() >= 1
    assert not (daemonless_sandboxes.root / "sandboxes" / sid).exists()


def test_leftover_cleanup_spares_a_live_owner_s_sandbox(daemonless_sandboxes: DaemonlessSandboxes,
                                                        base_image: str, tmp_path: Path) -> None:
    with daemonless_sandboxes.open(base_image, SandboxLimits(), purpose="test") as sb:
        daemonless_sandboxes.cleanup_leftovers()
        assert sb.exec("echo alive").output == "alive\n"
    dead = subprocess.Popen(["true"])
    dead.wait()
    folder = daemonless_sandboxes.root / "sandboxes" / "evaluator-0123456789abcdef"
    folder.mkdir(parents=True)
    owner = owner_label().rsplit("/", 1)[0] + f"/{dead.pid}"
    (folder / "labels.json").write_text(json.dumps({"evaluator.owner": owner,
                                                    "evaluator.created": str(int(time.time())),
                                                    "evaluator.deadline": "9999999999"}))
    assert daemonless_sandboxes.cleanup_leftovers() >= 1 and not folder.exists()


def test_a_sandbox_folder_removed_while_the_cleanup_reads_it_is_passed_over(
        daemonless_sandboxes: DaemonlessSandboxes) -> None:
    # As another process's sandbox whose owner closed it between the listing and the read: no
    # labels and no folder any more (a dangling link stands in for the moment in between).
    gone = daemonless_sandboxes.root / "sandboxes" / "evaluator-00000000000000gone"
    gone.parent.mkdir(parents=True, exist_ok=True)
    gone.symlink_to(gone.parent / "nothing-here")
    try:
        daemonless_sandboxes.cleanup_leftovers()
    finally:
        gone.unlink()


def test_a_harness_that_is_not_root_and_has_no_subordinate_ids_is_told_what_to_get() -> None:
    out = as_nobody(_NOT_ROOT)  # a user without /etc/subuid ranges: no user namespace of its own
    alive, opened, unpacked = out.stdout.splitlines()
    assert alive.startswith("False rlimits (cannot make"), out.stdout + out.stderr  # no cgroup
    assert opened.startswith("InfraError the daemonless backend without root needs subordinate "
                             "ids for user nobody (uid 65534)") and "usermod --add-subuids" in opened
    assert unpacked.startswith("InfraError unpacking layer sha256:") and "CAP_CHOWN" in unpacked
    assert "/etc/subuid" in unpacked
