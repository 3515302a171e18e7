"""The daemonless backend's caps on real cgroup v2, on a demo task (by hand).

The checks of tests/cgroup_v2.py (which tests/sandbox/test_daemonless_cgroup_v2.py runs in CI on
the tests' calc image) on one task of the demo set: a guest of tests/vm.py (Debian's kernel with
cgroup v1 off, this host's root read-only over 9p) unpacks the task's image, checks the caps
and the walls, and grades the task's gold and empty patches. One line per check; the exit
status is 0 only when every one passed.

    .venv/bin/python benchmarks/check_cgroup_v2.py [--task TASK] [--kvm] [--keep DIR] [--smoke]

Needs root, Debian's qemu-system-x86, busybox-static, cpio and kmod, and the demo's lock and
images on the Docker engine (`doit lock:demo`).

`--smoke`: everything before the guest: the tools, the task's grade spec, hidden tests and gold
patch from the committed lock, and the folder the guest reads (the spec as the guest reads it
back). It leaves out `docker save` of the task's image and booting the guest (minutes under
TCG), which tests/sandbox/test_daemonless_cgroup_v2.py does in CI on the tests' calc image.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.grading import GradeSpec, grade_spec, hidden_test_bytes  # noqa: E402
from evaluator.lock import load_locked  # noqa: E402
from evaluator.taskset import load_task_set  # noqa: E402
from tests import cgroup_v2, vm  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="csv-export-quoting", help="the demo task graded")
    parser.add_argument("--kvm", action="store_true", help="-enable-kvm instead of TCG")
    parser.add_argument("--keep", type=Path, help="the guest's folder (initramfs, archive), kept")
    parser.add_argument("--smoke", action="store_true",
                        help="everything before `docker save` and the guest's boot, which it "
                             "leaves out: does it still run?")
    args = parser.parse_args()
    lacking = vm.missing()
    if lacking:
        raise SystemExit(lacking)
    task_set = load_task_set("demo", REPO / "tasks")
    lock = load_locked(task_set, str(REPO / "lock"))
    task = next((t for t in task_set.tasks if t.id == args.task), None)
    if task is None:
        raise SystemExit(f"--task {args.task}: no such task in the demo set")
    spec = grade_spec(task_set, task, lock)
    if args.smoke:
        return smoke(spec, hidden_test_bytes(task_set, task, lock), task.gold_patch)
    work = args.keep or Path(tempfile.mkdtemp(prefix="evaluator-vm-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        found, console = cgroup_v2.run(spec, hidden_test_bytes(task_set, task, lock),
                                       task.gold_patch, work, kvm=args.kvm)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    for r in found:
        print(f"{'ok  ' if r['ok'] else 'FAIL'} {r['check']:16} {r['detail']}")
    missing = [c for c in cgroup_v2.CHECKS if c not in {r["check"] for r in found}]
    print(f"{len(found)} check(s) on {args.task} in a cgroup v2 guest under "
          f"{'KVM' if args.kvm else 'TCG'}, {time.monotonic() - started:.0f} s"
          + (f"; never reported: {', '.join(missing)}" if missing else ""))
    if missing or not all(r["ok"] for r in found):
        print(console[-4000:], file=sys.stderr)
        return 1
    return 0


def smoke(spec: GradeSpec, hidden: dict[str, bytes], gold: bytes) -> int:
    """What the guest is given, written as `cgroup_v2.run` writes it and read back as the guest
    reads it: the same spec, hidden tests and a gold patch."""
    if not hidden or not gold:
        raise SystemExit(f"the task has {len(hidden)} hidden test file(s) and a gold patch of "
                         f"{len(gold)} bytes")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "spec.json").write_text(json.dumps(dataclasses.asdict(spec)))
        back = cgroup_v2._spec(Path(tmp) / "spec.json")
    if back != spec:
        raise SystemExit(f"the guest would read another spec: {back} != {spec}")
    print(f"smoke: {spec.task_id} ready for the guest ({len(hidden)} hidden test file(s), gold "
          f"{len(gold)} bytes); docker save and the guest's boot left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
