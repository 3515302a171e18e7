"""Faults while a run runs: the run killed with SIGKILL, the store's disk full."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time

from benchmarks._faults._project import DOIT, Fault, Project, Verdict


def _killed(p: Project, v: Verdict) -> None:
    labels = [p.label(sample=s) for s in range(10, 14)]
    for label in labels:
        p.remove(label)
    before = set(p.records("attempt"))
    run = subprocess.Popen([*DOIT, "-n", "2", "-P", "process", "eval:mini"], env=p.env(),
                           cwd=p.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and run.poll() is None and set(
            p.records("attempt")) == before:
        time.sleep(0.5)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    again = p.doit("-n", "2", "-P", "process", "eval:mini")
    v.rc(again, True)
    v.check(len(set(p.records("attempt")) - before) == len(labels),
            "the attempts the killed run left are not all there after a rerun")
    v.rc(p.ev("store", "verify"), True)  # nothing half-written


def _disk_full(p: Project, v: Verdict) -> None:
    mount = p.root / "small"
    mount.mkdir()
    # What the store takes on a disk, not the sum of its files' lengths: each small record takes
    # a whole page of the tmpfs (1,200 attempts: 21 MB of bytes in 37 MB of pages), so a tmpfs
    # sized by lengths was full before the filler and too small to run on even once emptied.
    size = sum(f.stat().st_blocks * 512 for f in p.store.rglob("*") if f.is_file())
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size // 1024 + 16384}k", "tmpfs",
                       str(mount)]).returncode != 0:
        v.check(False, "could not mount a tmpfs")
        return
    try:
        shutil.copytree(p.store, mount / "store", symlinks=True)
        shutil.rmtree(p.store)
        p.store.symlink_to(mount / "store")
        labels = [p.label(sample=s) for s in (20, 21)]
        for label in labels:
            p.remove(label)
        filler = mount / "filler"
        free = shutil.disk_usage(mount).free
        subprocess.run(["fallocate", "-l", str(free - 40 * 1024), str(filler)], check=True)
        ev = p.doit("-n", "2", "-P", "process", "eval:mini", EVAL_STORE_MIN_FREE_MB="0")
        v.rc(ev, False)
        full = [line for line in ev.text.splitlines() if "out of space" in line]
        v.check(bool(full) and all(str(mount / "store") in line for line in full),
                f"the full disk is not named in one line per target: {ev.text[-400:]!r}")
        refused = p.doit("eval:mini")  # the default: nothing starts on a store without room
        v.says(refused, "not started", "under the 1 MB")
        filler.unlink()
        again = p.doit("eval:mini")
        v.rc(again, True)
    finally:
        p.store.unlink(missing_ok=True)
        if (mount / "store").is_dir():
            shutil.copytree(mount / "store", p.store, symlinks=True)
        subprocess.run(["umount", "-l", str(mount)], check=False)


FAULTS = [
    Fault("killed-mid-eval", "doit eval killed with SIGKILL as its first attempt lands",
          _killed),
    Fault("disk-full", "the store's disk full (a tmpfs), mid-run and before a run", _disk_full,
          root_only=True),
]
