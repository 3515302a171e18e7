"""`make demo`'s gold gate and eval on each sandbox backend: the same verdicts, the same keys and
the same outcome per attempt as on Docker?

For each backend, a store of its own and the commands `make demo` runs (`doit -n JOBS -P process
gold:demo`, then `eval:demo`) with `EVAL_SANDBOX_BACKEND` set. A backend's images come from this
machine's Docker engine first, by id, outside the timings (podman: `copy_image`, which keeps the
id and tags; a backend whose images have `copy_from` reads the engine itself; any other: its
`Images.load` of what `docker save` writes). Then one table per kind: each task's gold verdict,
and each attempt's outcome (agent, task, sample -> status, exit reason, the grade's per-test
statuses' digest) per backend; whether every backend made the same attempt, grade and result
keys (the backend is in no key); what the records say ran them; each backend's wall time; and a
last line saying whether every backend agrees with Docker (exit status 0 only then).

    .venv/bin/python benchmarks/bench_backends.py [--backends docker podman ...] [--jobs 2]
        [--no-exploits] [--tasks N] [--samples N] [--keep DIR] [--smoke]

`--no-exploits` leaves out the exploit gate (16 bundled exploit grades per valid task, four times
the gold gate's own grades): the set is copied with `exploits: []` and locked again once, on
Docker, and every backend runs that copy. `--tasks N` keeps the first N tasks of the set besides
its two gold-gate fixtures (the flaky one and the broken gold), and `--samples N` sets the eval's
samples, for a shorter run on a busy machine (the same copy, so every backend runs the same).
`--smoke`: docker and daemonless on one task of the set (no fixtures, no exploits, one gold rep,
one sample of reference-strong): the whole comparison in a few grades, exiting non-zero unless
the two agree.

`podman-rootless` is podman's service run by the rootless user that `.ci/podman-up` makes,
started for the run (its images copied from Docker by id, as for podman).
`daemonless-as-a-user` is the daemonless backend started by the rootless user that
`.ci/podman-up` makes (`EVAL_PODMAN_ROOTLESS_USER`, with subordinate ids): its own harness
loads the images from the archive `docker save` writes and runs doit, which enters its user
namespace (docs/daemonless.md, "Without root").

Needs the Docker engine, the demo images and lock (`make demo`, or `.venv/bin/doit lock:demo`),
and each backend named (podman: its service, `.ci/podman-up`). A backend this checkout or
machine lacks is reported as not run, never counted as agreeing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import docker  # noqa: E402

from benchmarks._demo import demo_copy  # noqa: E402
from evaluator.errors import EvalError  # noqa: E402
from evaluator.gold import verdicts  # noqa: E402
from evaluator.hashing import hash_json  # noqa: E402
from evaluator.lock import load_locked  # noqa: E402
from evaluator.sandbox import BACKENDS, copy_image, docker_client, open_backend  # noqa: E402
from evaluator.store import Store  # noqa: E402
from evaluator.taskset import load_task_set  # noqa: E402
from tests.daemonless import as_user, rootless_user  # noqa: E402
from tests.engines import rootless_podman_service  # noqa: E402

SET = "demo"


_AS_A_USER = "-as-a-user"  # daemonless-as-a-user: the daemonless backend, started by a user
_ROOTLESS = "-rootless"  # podman-rootless: podman's service run by that user
_hosts: dict[str, str] = {}  # a rootless service's EVAL_PODMAN_HOST, once started


def bring_images(backend: str, images: list[str], root: Path) -> None:
    """Give `backend` the set's images from the Docker engine, by id, unless it has them."""
    if backend == "docker":
        return
    if backend.endswith(_ROOTLESS):
        rootless = docker.DockerClient(base_url=_hosts[backend])
        for image in images:
            t0 = time.perf_counter()
            copy_image(image, docker_client(), rootless)
            print(f"  {backend}: {image[:19]} in {time.perf_counter() - t0:.1f} s", flush=True)
        rootless.close()
        return
    if backend.endswith(_AS_A_USER):  # the user's own harness loads what `docker save` wrote
        try:
            user = rootless_user()
        except BaseException as e:  # noqa: BLE001 - the tests' "unavailable", said as not run
            raise RuntimeError(f"no user to start it: {e}") from None
        t0 = time.perf_counter()
        archive = root / "images.tar"
        subprocess.run(["docker", "save", "-o", str(archive), *images], check=True)
        subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}",
                        str(root)], check=True)
        env = _user_env(backend, root, {})
        done = as_user([sys.executable, "-m", "evaluator", "images", "load", str(archive)],
                       env=env, cwd=root)
        archive.unlink()
        if done.returncode != 0:
            raise RuntimeError(f"loading the images as {user.pw_name} failed: "
                               f"{(done.stdout + done.stderr)[-1500:]}")
        print(f"  {backend}: {len(images)} images as {user.pw_name} in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        return
    sandboxes = open_backend(backend)
    store = sandboxes.images
    for image in images:
        if store.has(image):
            continue
        t0 = time.perf_counter()
        copy_from = getattr(store, "copy_from", None)
        if backend == "podman":
            copy_image(image, docker_client(), sandboxes.client)  # type: ignore[attr-defined]
        elif copy_from is not None:  # reads the engine directly: no archive in memory
            copy_from(f"docker-daemon:{image}")
        else:
            store.load(subprocess.run(["docker", "save", image], capture_output=True,
                                      check=True).stdout)
        print(f"  {backend}: {image[:19]} in {time.perf_counter() - t0:.1f} s", flush=True)


_DOIT = str(REPO / ".venv" / "bin" / "doit")


@contextlib.contextmanager
def _rootless_service() -> Iterator[str]:
    try:
        service = rootless_podman_service()
        host = service.__enter__()
    except BaseException as e:  # noqa: BLE001 - the tests' "unavailable", said as not run
        raise RuntimeError(f"no rootless podman service: {e}") from None
    try:
        yield host
    finally:
        service.__exit__(None, None, None)


def _user_env(backend: str, root: Path, extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **extra, "EVAL_SANDBOX_BACKEND": backend.removesuffix(_AS_A_USER),
            "HOME": str(root), "XDG_CACHE_HOME": str(root / "cache"),
            "PYTHONPATH": str(REPO)}


def run_demo(backend: str, root: Path, jobs: int, extra: dict[str, str]) -> float:
    """gold:demo then eval:demo on `backend`, in a store of its own; the wall seconds (for
    `daemonless-as-a-user`, doit run by the rootless user, which enters its user namespace)."""
    env = {**os.environ, **extra, "EVAL_SANDBOX_BACKEND": backend,
           "EVAL_STORE": str(root / "store"), "EVAL_REPORTS": str(root / "reports")}
    doit = [_DOIT, "-n", str(jobs), "-P", "process"]
    if backend.endswith(_ROOTLESS):
        env.update(EVAL_SANDBOX_BACKEND=backend.removesuffix(_ROOTLESS),
                   EVAL_PODMAN_HOST=_hosts[backend])
    if backend.endswith(_AS_A_USER):
        env = {**_user_env(backend, root, extra), "EVAL_STORE": env["EVAL_STORE"],
               "EVAL_REPORTS": env["EVAL_REPORTS"]}
        doit = [sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"), *doit[1:]]
    t0 = time.perf_counter()
    for target in (f"gold:{SET}", f"eval:{SET}"):
        if backend.endswith(_AS_A_USER):
            reach = tuple(Path(v) for k, v in extra.items() if k.startswith("EVAL_"))
            done = as_user([*doit, target], env=env, cwd=REPO, reach=reach)
        else:
            done = subprocess.run([*doit, target], cwd=REPO, env=env, capture_output=True,
                                  text=True)
        (root / f"{target.replace(':', '-')}.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip()[-1500:]
            raise RuntimeError(f"doit {target} on {backend} failed ({done.returncode}): {tail}")
    return time.perf_counter() - t0


def outcomes(root: Path, tasks: Path, locks: Path) -> tuple[
        dict[str, str], dict[str, str], dict[str, list[str]], Counter[str]]:
    """(task -> gold verdict, attempt -> outcome, kind -> sorted keys, what ran them)."""
    ts = load_task_set(SET, tasks)
    lock = load_locked(ts, str(locks))
    store = Store(root / "store", remote=None)
    gold = {task: rec.verdict for task, rec in verdicts(store, ts, lock).items()}
    grades = {r["key"]: r for r in store.iter_records("grade")}
    results = {}
    for rec in store.iter_records("result"):
        if rec.get("task_set") != SET or rec.get("predictions"):
            continue
        label = f"{rec['subject']} {rec['task_id']} #{rec.get('sample_idx', 0)}"
        grade: dict[str, Any] = grades.get(str(rec.get("grade")), {})
        tests = hash_json(grade.get("tests") or {})[:8] if grade else "-"
        results[label] = (f"{rec['status']} {rec.get('grade_outcome')} "
                          f"({rec.get('exit_reason') or '-'}, tests {tests})")
    keys = {kind: sorted(r["key"] for r in store.iter_records(kind))
            for kind in ("attempt", "grade", "result", "verdict")}
    ran: Counter[str] = Counter()
    for kind in ("attempt", "grade"):
        for rec in store.iter_records(kind):
            b = rec.get("backend") or {}
            what = f"{kind}s on {b.get('name', '?')} {b.get('version', '')} {b.get('detail', '')}"
            ran[what.rstrip()] += 1
    return gold, results, keys, ran


def table(title: str, rows: dict[str, dict[str, str]], backends: list[str]) -> list[str]:
    """Print one table; the rows where some backend differs from the first."""
    width = max([len(title), *(len(r) for r in rows)]) + 2
    cols = {b: max([len(b), *(len(v.get(b, "")) for v in rows.values())]) + 2 for b in backends}
    print(f"\n{title:<{width}}" + "".join(f"{b:<{cols[b]}}" for b in backends) + "same")
    differ = []
    for label in sorted(rows):
        got = rows[label]
        same = all(got.get(b) == got.get(backends[0]) for b in backends)
        print(f"{label:<{width}}" + "".join(f"{got.get(b, 'MISSING'):<{cols[b]}}"
                                           for b in backends) + ("yes" if same else "NO"))
        if not same:
            differ.append(label)
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", nargs="+", default=list(BACKENDS),
                    help=f"the first is the reference (default: {' '.join(BACKENDS)})")
    ap.add_argument("--jobs", type=int, default=2, help="doit -n, as `make demo` (JOBS)")
    ap.add_argument("--keep", type=Path, help="keep each backend's store and logs under this")
    ap.add_argument("--no-exploits", action="store_true",
                    help="leave out the exploit gate (a copy of the set with `exploits: []`)")
    ap.add_argument("--tasks", type=int, help="keep the first N tasks besides the fixtures")
    ap.add_argument("--samples", type=int, help="the eval's samples (evals/demo.yaml: 2)")
    ap.add_argument("--smoke", action="store_true",
                    help="docker and daemonless on one task, one gold rep, one attempt: does it run?")
    args = ap.parse_args()
    if args.smoke:
        args.backends = ["docker", "daemonless"]
    tasks, locks = REPO / "tasks", REPO / "lock"
    ts = load_task_set(SET, tasks)
    lock = load_locked(ts, str(locks))
    images = sorted({lock.pin(t.id).image for t in ts.tasks})
    ran_on: list[str] = []
    unavailable: dict[str, str] = {}
    walls: dict[str, float] = {}
    verdict_rows: dict[str, dict[str, str]] = {}
    attempt_rows: dict[str, dict[str, str]] = {}
    key_sets: dict[str, dict[str, list[str]]] = {}
    records: dict[str, Counter[str]] = {}
    print(f"{len(ts.tasks)} tasks, {len(images)} images, backends {args.backends}, exploit gate "
          f"{'off' if args.no_exploits or args.smoke else 'on'}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-backends-") as tmp, \
            contextlib.ExitStack() as services:
        base = args.keep or Path(tmp)
        extra: dict[str, str] = {}
        if args.smoke:
            extra = demo_copy(base / "set", exploits=False, tasks=1, fixtures=False, gold_reps=1,
                              samples=1, agents=["reference-strong"])
            tasks, locks = Path(extra["EVAL_TASKS"]), Path(extra["EVAL_LOCK_DIR"])
            ts = load_task_set(SET, tasks)
            images = sorted({load_locked(ts, str(locks)).pin(t.id).image for t in ts.tasks})
            print(f"  smoke: a copy of the set, {', '.join(t.id for t in ts.tasks)} alone",
                  flush=True)
        elif args.no_exploits or args.tasks is not None or args.samples is not None:
            extra = demo_copy(base / "set", exploits=not args.no_exploits, tasks=args.tasks,
                              samples=args.samples)
            tasks, locks = Path(extra["EVAL_TASKS"]), Path(extra["EVAL_LOCK_DIR"])
            ts = load_task_set(SET, tasks)
            print(f"  a copy of the set: {len(ts.tasks)} tasks, samples "
                  f"{args.samples or 'as evals/demo.yaml'}", flush=True)
        for backend in args.backends:
            if backend.removesuffix(_AS_A_USER).removesuffix(_ROOTLESS) not in BACKENDS:
                unavailable[backend] = f"not a backend of this checkout ({', '.join(BACKENDS)})"
                continue
            root = base / backend
            root.mkdir(parents=True, exist_ok=True)
            try:
                if backend.endswith(_ROOTLESS):
                    _hosts[backend] = services.enter_context(_rootless_service())
                bring_images(backend, images, root)
                walls[backend] = run_demo(backend, root, args.jobs, extra)
            except (EvalError, RuntimeError, OSError, subprocess.CalledProcessError) as e:
                unavailable[backend] = str(e)[-600:]
                continue
            gold, results, keys, ran = outcomes(root, tasks, locks)
            for task, verdict in gold.items():
                verdict_rows.setdefault(task, {})[backend] = verdict
            for label, outcome in results.items():
                attempt_rows.setdefault(label, {})[backend] = outcome
            key_sets[backend], records[backend] = keys, ran
            ran_on.append(backend)
            print(f"  {backend}: gold + eval in {walls[backend]:.0f} s (load "
                  f"{os.getloadavg()[0]:.1f})", flush=True)
    if not ran_on:
        print("no backend ran: " + "; ".join(f"{b}: {w}" for b, w in unavailable.items()))
        return 2
    differ = table("gold verdict", verdict_rows, ran_on)
    differ += table("attempt (agent task #sample)", attempt_rows, ran_on)
    print("\nkeys (the backend is in none):")
    for kind in ("attempt", "grade", "result", "verdict"):
        counts = {b: len(key_sets[b][kind]) for b in ran_on}
        same = all(key_sets[b][kind] == key_sets[ran_on[0]][kind] for b in ran_on)
        print(f"  {kind}: " + ", ".join(f"{b} {n}" for b, n in counts.items())
              + (" -- the same keys" if same else " -- KEYS DIFFER"))
        if not same:
            differ.append(f"{kind} keys")
    print("\nwhat the records say ran them:")
    for backend in ran_on:
        print(f"  {backend}: " + "; ".join(f"{n} {what}"
                                           for what, n in sorted(records[backend].items())))
    print("wall (gold + eval): " + ", ".join(f"{b} {walls[b]:.0f} s" for b in ran_on)
          + f"; load now {os.getloadavg()[0]:.1f}")
    for backend, why in unavailable.items():
        print(f"NOT RUN {backend}: {why}")
    n = len(verdict_rows) + len(attempt_rows)
    if ran_on[0] != "docker":
        print("DISAGREE: docker did not run first, so nothing was compared with it")
        return 1
    if differ or unavailable:
        print(f"DISAGREE: {len(differ)} of {n} rows differ from docker ({', '.join(differ[:5])})"
              + (f"; not run: {', '.join(unavailable)}" if unavailable else ""))
        return 1
    print(f"AGREE: all {len(verdict_rows)} verdicts, {len(attempt_rows)} attempt outcomes and "
          f"every key are the same on {', '.join(ran_on)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
