"""The daemonless backend's caps on cgroup v2, checked for real in a virtual machine (by hand).

This machine, like CI's, mounts the memory, pids and cpu controllers on cgroup v1, so the v2
path of evaluator/sandbox/_cgroups.py meets only unit tests there; most hosts users run on are
cgroup v2. This boots Debian's own kernel (the `linux-image-amd64` it depends on, fetched with
`apt-get download`) under qemu with `cgroup_no_v1=all`, from a small initramfs (busybox and the
virtio, 9p and overlay modules) that mounts this host's root read-only over 9p and a cgroup2
hierarchy holding every controller, puts a tmpfs where the guest writes (/tmp, /run, and the
daemonless store's sandboxes and seals) and runs this file with `--guest` there, as root, on
the checkout, venv and daemonless store as they are here. Each check prints one line; the exit
status is 0 only when every one passed:

- the hierarchy is cgroup v2 with memory, pids and cpu, and the backend's record says so;
- a sandbox's cgroup holds its caps (memory.max, memory.swap.max 0, pids.max, cpu.max);
- a fork bomb meets `pids` and its exec ends, a 400 MB allocation fails under 128 MB, a sleep
  past its timeout is killed, and each of two sandboxes gets its own processes;
- when a sandbox closes nothing of it runs, and its cgroup is gone once its removal ran;
- a demo task's gold patch resolves and the empty patch does not (the grader's whole path:
  seal, canaries, guard, report).

    .venv/bin/python benchmarks/check_cgroup_v2.py [--task TASK] [--kvm] [--keep DIR]

Needs root, Debian's qemu-system-x86, busybox-static, cpio and kmod, and the demo's images
(`doit lock:demo`): the task's image is copied from the Docker engine into the daemonless store
first. Without `--kvm` the guest runs under TCG (software; the kernel boots in about 3 s here,
where nested KVM hung at boot). The kernel is cached in $XDG_CACHE_HOME/evaluator/vm.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

MARK = "VMCHECK "
# The virtio transport, 9p over it, and overlayfs (the sandboxes' workdirs); their dependencies
# are found with modinfo and loaded first.
_MODULES = ("virtio_pci", "9pnet_virtio", "9p", "overlay")
_FORKS = ("python3 -c \"import os, time\nn = 0\nwhile n < 200:\n    try:\n        pid = os.fork()\n"
          "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(3)\n"
          "        os._exit(0)\n    n += 1\nprint('forked', n)\"")


# --- in the guest ---------------------------------------------------------------------------

def _say(check: str, ok: bool, detail: Any = "") -> bool:
    print(MARK + json.dumps({"check": check, "ok": bool(ok), "detail": str(detail)[:600]}),
          flush=True)
    return bool(ok)


def guest(task_id: str, archive: Path) -> int:
    from evaluator.grading import DockerGrader, grade_spec, hidden_test_bytes
    from evaluator.lock import load_locked
    from evaluator.sandbox import DaemonlessSandboxes, SandboxLimits
    from evaluator.sandbox._removal import drain
    from evaluator.taskset import load_task_set

    sandboxes = DaemonlessSandboxes()
    started = time.monotonic()
    loaded = sandboxes.store.load_file(archive)
    _say("image", bool(loaded), f"{loaded} unpacked in {time.monotonic() - started:.0f} s")
    hierarchy = sandboxes.hierarchy
    _say("hierarchy", hierarchy.kind == "cgroup v2", hierarchy.describe())
    record = sandboxes.backend().to_record()
    _say("record", "cgroup v2 (memory, pids, cpu)" in record.get("detail", ""), record)
    task_set = load_task_set("demo", REPO / "tasks")
    lock = load_locked(task_set, str(REPO / "lock"))
    task = next(t for t in task_set.tasks if t.id == task_id)
    spec = grade_spec(task_set, task, lock)
    limits = SandboxLimits(memory_mb=128, pids=40, cpus=0.5, exec_timeout_s=20)
    groups = []
    with sandboxes.open(spec.image, limits, purpose="test") as sb, \
            sandboxes.open(spec.image, limits, purpose="test") as other:
        caps = sb.exec("cat /proc/self/cgroup").output.strip()
        groups = [p for p in Path("/sys/fs/cgroup").rglob("pids.max")
                  if "evaluator-daemonless" in str(p) and p.parent.name != "evaluator-daemonless"]
        files = {g.parent.name: {f: (g.parent / f).read_text().strip() for f in
                                 ("memory.max", "memory.swap.max", "pids.max", "cpu.max")}
                 for g in groups}
        want = {"memory.max": str(128 << 20), "memory.swap.max": "0", "pids.max": "40",
                "cpu.max": "50000 100000"}
        _say("caps", len(files) == 2 and all(v == want for v in files.values()),
             f"{files} (an exec's own: {caps})")
        bomb = sb.exec("b() { b | b & }; b; sleep 3", timeout_s=10)
        _say("fork bomb", bomb.duration_s < 30 and ("Cannot fork" in bomb.output
                                                   or "Resource temporarily" in bomb.output),
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
    # Killed at once when closed; the folders go on the removal thread (drained here).
    running = {g.parent.name: (g.parent / "cgroup.procs").read_text().split()
               for g in groups if g.parent.exists()}
    drain()
    left = [g.parent.name for g in groups if g.parent.exists()]
    _say("closed", len(groups) == 2 and not any(running.values()) and not left,
         f"running at close: {running}; cgroups left after removal: {left}")
    grader = DockerGrader(sandboxes)
    hidden = hidden_test_bytes(task_set, task, lock)
    gold = grader.grade(spec, task.gold_patch, hidden)
    empty = grader.grade(spec, b"", hidden)
    _say("gold and empty", gold.resolved and not empty.resolved,
         f"gold {gold.outcome} ({gold.detail[:150]}), empty {empty.outcome}")
    return 0


# --- on the host ----------------------------------------------------------------------------

def _run(argv: list[str], **kw: Any) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw).stdout


def kernel(cache: Path) -> tuple[Path, Path]:
    """(vmlinuz, the modules' folder) of the kernel `linux-image-amd64` depends on."""
    depends = _run(["apt-cache", "depends", "linux-image-amd64"])
    package = next(line.split()[-1] for line in depends.splitlines()
                   if line.strip().startswith("Depends:") and "linux-image-" in line)
    root = cache / package
    if not (root / "boot").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["apt-get", "download", package], cwd=tmp, check=True,
                           capture_output=True)
            (deb,) = Path(tmp).glob("*.deb")
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    (vmlinuz,) = (root / "boot").glob("vmlinuz-*")
    (modules,) = (root / "lib" / "modules").iterdir()
    return vmlinuz, modules


def _ordered(modules: Path) -> list[Path]:
    """The modules to load, each after what it depends on."""
    files = {p.name.removesuffix(".ko"): p for p in modules.rglob("*.ko")}
    order: list[Path] = []

    def visit(name: str) -> None:
        path = files[name]
        if path in order:
            return
        deps = _run(["modinfo", "-F", "depends", str(path)]).strip()
        for dep in filter(None, deps.split(",")):
            visit(dep)
        order.append(path)

    for name in _MODULES:
        visit(name)
    return order


_INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod /mods/$m || echo "insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose host /host \
  || { echo "VMCHECK-INIT no 9p root"; poweroff -f; }
for d in proc sys dev; do mount --rbind /$d /host/$d; done
mount -t cgroup2 none /host/sys/fs/cgroup
echo "+memory +pids +cpu" > /host/sys/fs/cgroup/cgroup.subtree_control
for d in $(cat /writable); do mount -t tmpfs tmpfs /host$d; done
cmd=$(sed -n 's/.*vmcheck=\([^ ]*\).*/\1/p' /proc/cmdline | base64 -d)
# A root of its own, not a chroot: the kernel refuses a user namespace to a chrooted process.
end='echo "VMCHECK-INIT exit $?"; echo o > /proc/sysrq-trigger; sleep 30'
exec switch_root /host /bin/sh -c "$cmd; $end"
"""


def initramfs(dest: Path, modules: Path, writable: list[str]) -> Path:
    busybox = shutil.which("busybox")
    if busybox is None or "statically linked" not in _run(["file", "-L", busybox]):
        raise SystemExit("a static busybox is needed: apt-get install busybox-static")
    root = dest / "initramfs"
    for d in ("bin", "mods", "proc", "sys", "dev", "host"):
        (root / d).mkdir(parents=True, exist_ok=True)
    shutil.copy(busybox, root / "bin" / "busybox")
    order = _ordered(modules)
    for path in order:
        shutil.copy(path, root / "mods" / path.name)
    (root / "mods" / "order").write_text("\n".join(p.name for p in order) + "\n")
    (root / "writable").write_text("\n".join(writable) + "\n")
    (root / "init").write_text(_INIT)
    (root / "init").chmod(0o755)
    names = subprocess.run(["find", "."], cwd=root, check=True, capture_output=True).stdout
    archive = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=names,
                             check=True, capture_output=True).stdout
    out = dest / "initrd.gz"
    out.write_bytes(gzip.compress(archive, 1))
    return out


def save(task_id: str, archive: Path) -> str:
    """The task's pinned image, from the Docker engine into `archive` (`docker save`)."""
    from evaluator.lock import load_locked
    from evaluator.taskset import load_task_set

    task_set = load_task_set("demo", REPO / "tasks")
    image = load_locked(task_set, str(REPO / "lock")).tasks[task_id].image
    subprocess.run(["docker", "save", "-o", str(archive), image], check=True)
    return image


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="csv-export-quoting", help="the demo task graded")
    parser.add_argument("--kvm", action="store_true", help="-enable-kvm instead of TCG")
    parser.add_argument("--keep", type=Path, help="build the initramfs here and keep it")
    parser.add_argument("--guest", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--archive", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=1200)
    args = parser.parse_args()
    if args.guest:
        return guest(args.task, args.archive)
    if os.geteuid() != 0 or shutil.which("qemu-system-x86_64") is None:
        raise SystemExit("needs root and qemu-system-x86_64 (apt-get install qemu-system-x86)")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "evaluator" / "vm"
    vmlinuz, modules = kernel(cache)
    # Not under /tmp, which the guest covers with a tmpfs of its own.
    work = args.keep or Path(tempfile.mkdtemp(prefix="evaluator-vmcheck-", dir="/var/tmp"))
    work.mkdir(parents=True, exist_ok=True)
    save(args.task, work / "image.tar")
    initrd = initramfs(work, modules, ["/tmp", "/run", str(Path.home() / ".cache")])
    # The guest's daemonless store is a tmpfs of its own, the image unpacked there from the archive.
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in {
        "PATH": os.environ["PATH"], "HOME": str(Path.home()),
        "EVAL_DAEMONLESS_ROOT": "/tmp/daemonless", "EVAL_SANDBOX_BACKEND": "daemonless",
        "PYTHONDONTWRITEBYTECODE": "1"}.items())
    command = (f"cd {shlex.quote(str(REPO))} && env {env} {shlex.quote(sys.executable)} "
               f"benchmarks/check_cgroup_v2.py --guest --task {shlex.quote(args.task)} "
               f"--archive {shlex.quote(str(work / 'image.tar'))}")
    accel = ["-enable-kvm"] if args.kvm else ["-accel", "tcg,thread=multi"]
    argv = ["qemu-system-x86_64", *accel, "-m", "3072", "-smp", "2", "-nographic", "-no-reboot",
            "-kernel", str(vmlinuz), "-initrd", str(initrd), "-append",
            "console=ttyS0 quiet panic=-1 cgroup_no_v1=all vmcheck="
            + base64.b64encode(command.encode()).decode(),
            "-virtfs", "local,path=/,mount_tag=host,security_model=passthrough,readonly=on,"
            "multidevs=remap"]
    started = time.monotonic()
    out = subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout).stdout
    results = [json.loads(line.split(MARK, 1)[1]) for line in out.splitlines() if MARK in line]
    for r in results:
        print(f"{'ok  ' if r['ok'] else 'FAIL'} {r['check']:16} {r['detail']}")
    print(f"{len(results)} check(s) in a {vmlinuz.name} guest under "
          f"{'KVM' if args.kvm else 'TCG'}, {time.monotonic() - started:.0f} s")
    if not results or not all(r["ok"] for r in results):
        print(out[-4000:], file=sys.stderr)
        return 1
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
