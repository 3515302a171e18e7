"""`make demo` from a bare machine, measured on this one without disturbing it.

    .venv/bin/python benchmarks/bench_demo.py [--keep] [--smoke]

A bare machine has no Docker engine, no images, no virtualenv and no caches. This machine's
engine is shared, so nothing of it is removed; instead:

1. **engine install**: what `.ci/docker-up` runs where no engine is (`apt-get update`, then
   `apt-get install docker.io debootstrap bubblewrap`, from the mirror this machine's apt uses), in
   a fresh container of the base image (Debian bookworm's minbase) with the host's network;
2. **engine start**: a second dockerd of its own (`tests/engines.py`: its own socket, data root
   and exec root), timed from its start until it answers;
3. **`make demo`** in a fresh clone of this checkout's HEAD, against that empty engine, with an
   empty pip cache and an empty Debian package cache: first `make setup-run` (the venv from
   `requirements.lock`) at the same time as 1, as `make setup-run` runs the two on a bare
   machine; then `make demo`: the base image from the pins of `lock/base.lock` (every package
   downloaded), the twelve task images, the lock, the gold gate, the eval and the report. Each
   line it prints is timestamped, and the steps are told apart by what make and the harness
   print.

The figure for a bare machine is the longer of 1 and the venv, then 2, then the rest of 3. It
prints the machine's load average before and after: compare figures only from runs on a quiet
machine. `--smoke` checks the parts (a second engine starts and stops, the clone's `make -n
demo` lists the steps this script times) in well under a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluator.images import BASE_TAG  # noqa: E402
from tests.engines import start_engine  # noqa: E402

ENGINE_PACKAGES = ("docker.io", "debootstrap", "bubblewrap")  # as .ci/docker-up installs them
# What starts each step of `make demo`, in order (a make recipe line, or the harness's own line).
STEPS = [
    ("bytecode", re.compile(r"compileall")),
    ("lock: doit starts", re.compile(r"/doit lock:")),
    ("lock: base image", re.compile(r"^\[base image\] building ")),
    ("lock: task images", re.compile(r"^building evaluator-demo/")),
    ("lock: pins and seals", re.compile(r"^checked \d+ image")),
    ("gold gate", re.compile(r"/doit -n \d+ -P process gold:")),
    ("eval", re.compile(r"/doit -n \d+ -P process eval:")),
    ("report", re.compile(r"/doit report:")),
]


def engine_install(work: Path) -> float:
    """Seconds `apt-get update && apt-get install` of the engine's packages takes in a fresh
    Debian container (the base image: bookworm's minbase) on this machine's network."""
    sources = work / "sources"
    sources.mkdir()
    for f in Path("/etc/apt").glob("sources.list*"):
        if f.is_file():
            shutil.copy(f, sources / f.name)
        elif f.is_dir():
            for g in f.glob("*.sources"):
                shutil.copy(g, sources / g.name)
            for g in f.glob("*.list"):
                shutil.copy(g, sources / g.name)
    script = ("set -e; rm -f /etc/apt/sources.list; rm -rf /etc/apt/sources.list.d; "
              "mkdir -p /etc/apt/sources.list.d; for f in /src/*; do case $f in "
              "*.sources|*.list) cp $f /etc/apt/sources.list.d/;; esac; done; "
              "t0=$(date +%s.%N); apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get "
              f"install -y -qq {' '.join(ENGINE_PACKAGES)} >/dev/null; t1=$(date +%s.%N); "
              "echo \"took $t0 $t1\"; dockerd --version")
    out = subprocess.run(["docker", "run", "--rm", "--network", "host", "-u", "0",
                          "-v", f"{sources}:/src:ro", BASE_TAG, "sh", "-c", script],
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"installing {ENGINE_PACKAGES} in a fresh container failed:\n"
                         f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
    took = next(line.split() for line in out.stdout.splitlines() if line.startswith("took "))
    print(f"engine install ({', '.join(ENGINE_PACKAGES)}): {float(took[2]) - float(took[1]):.1f}s"
          f" ({out.stdout.strip().splitlines()[-1]})", flush=True)
    return float(took[2]) - float(took[1])


def run_make(target: str, clone: Path, env: dict[str, str], log: Path) -> list[tuple[float, str]]:
    """Run `make <target>`; every line it prints with the seconds since it started."""
    lines: list[tuple[float, str]] = []
    t0 = time.monotonic()
    with subprocess.Popen(["make", target], cwd=clone, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, bufsize=1) as proc, \
            log.open("w") as out:
        assert proc.stdout is not None
        for line in proc.stdout:
            at = time.monotonic() - t0
            lines.append((at, line.rstrip("\n")))
            out.write(f"{at:8.1f} {line}")
        rc = proc.wait()
    lines.append((time.monotonic() - t0, f"make exit {rc}"))
    if rc != 0:
        raise SystemExit(f"make {target} failed (exit {rc}); its output is in {log}")
    return lines


def steps(lines: list[tuple[float, str]]) -> list[tuple[str, float]]:
    """Each step's seconds: from its first line to the next step's first line."""
    starts: list[tuple[str, float]] = []
    for at, line in lines:
        for name, pattern in STEPS:
            if pattern.search(line) and name not in {n for n, _ in starts}:
                starts.append((name, at))
    starts.sort(key=lambda s: s[1])
    end = lines[-1][0]
    return [(name, (starts[i + 1][1] if i + 1 < len(starts) else end) - at)
            for i, (name, at) in enumerate(starts)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", action="store_true", help="keep the clone and its log")
    ap.add_argument("--smoke", action="store_true", help="check the parts, run nothing long")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-demo-"))
    print(f"load average before: {os.getloadavg()}", flush=True)
    engine = None
    try:
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True)
        t = time.monotonic()
        engine = start_engine()
        started = time.monotonic() - t
        print(f"engine start (a dockerd of its own, empty): {started:.1f}s", flush=True)
        env = {**engine.env, "PIP_CACHE_DIR": str(work / "pip-cache"),
               "EVAL_DEB_CACHE": str(work / "debs"), "XDG_CACHE_HOME": str(work / "cache")}
        for name in ("EVAL_STORE", "EVAL_TASKS", "EVAL_LOCK_DIR", "EVAL_EVALS", "EVAL_AGENTS",
                     "EVAL_REPORTS", "VIRTUAL_ENV"):
            env.pop(name, None)
        if args.smoke:
            listed = subprocess.run(["make", "-n", "demo"], cwd=clone, env=env, text=True,
                                    capture_output=True, timeout=120).stdout
            found = [n for n, p in STEPS if any(p.search(x) for x in listed.splitlines())]
            expected = ["bytecode", "lock: doit starts", "gold gate", "eval", "report"]
            if found != expected:
                print(f"make -n demo lists {found}, expected {expected}:\n{listed}")
                return 1
            print("smoke: the engine starts and stops, make -n demo lists every step timed")
            return 0
        # `make setup-run` installs the engine's packages and the venv at once: so here, the
        # install in its container beside the clone's venv; the rest waits for both.
        with ThreadPoolExecutor(1) as pool:
            installing = pool.submit(engine_install, work)
            setup = run_make("setup-run", clone, env, work / "make-setup.log")
            install = installing.result()
        venv = setup[-1][0]
        lines = run_make("demo", clone, env, work / "make-demo.log")
        table = steps(lines)
        total = lines[-1][0]
        print("\n| step | s |\n|---|---:|")
        print(f"| engine install (apt, in a fresh container) | {install:.0f} |")
        print(f"| venv (pip, from an empty cache), at the same time | {venv:.0f} |")
        print(f"| engine start | {started:.0f} |")
        for name, secs in table:
            print(f"| {name} | {secs:.0f} |")
        print(f"| make demo once set up | {total:.0f} |")
        bare = max(install, venv) + started + total
        print(f"| **bare machine** | **{bare:.0f}** ({int(bare // 60)} min {bare % 60:02.0f} s) |")
        print(f"load average after: {os.getloadavg()}")
        for line in (x for _, x in lines if x.startswith(("exploit stage", "exploit gate"))):
            print(line)
    finally:
        if engine is not None:
            engine.stop()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
