"""Faults as a careful user meets them at lab scale: a battery of them, each injected alone into a
copy of a generated project of 1,000+ attempts, each checked to fail only what it concerns, name
itself and say how to fix it, with nothing stored lost.

The project is real: a set `mini` of T tasks and A simulated agents, locked, gold-gated and
evaluated by doit for sample 0 (real sandboxes, the simulated model), then multiplied to S
samples through the store's own API (each further sample a copy of its sample 0 with its own
key, seed, trajectory and conversation blobs, and its own result record), so every doit
command sees a done eval of T x A x S attempts. A second set `other` (one task) shows that a
fault in `mini` leaves it alone.

Each fault gets a fresh copy of the project, is injected, and the commands a user would run
next are run as real processes (doit, `evaluator`). It keeps the promise when no output holds a
traceback or a bare exception, every expected line is there (the file, record, field or
variable named, what to do), only what it concerns runs again, `doit plan:other` still works,
and every record that was stored is still there or kept under `corrupt/`.

    .venv/bin/python benchmarks/check_faults.py [--tasks 3 --agents 4 --samples 100]
        [--only NAME ...] [--keep DIR] [--smoke]

Exit 1 when a fault broke its promise (or the project could not be made). Without --keep the
projects live in a temporary folder removed at the end, also when a fault fails, the project
cannot be made or the run is interrupted (Ctrl-C, SIGTERM, SIGHUP); a run killed outright leaves
it to the next run, which removes folders whose process is gone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._faults import BARE, Project, Verdict, battery, copy_project  # noqa: E402
from evaluator.attempts import AttemptRecord, load_eval, plan_eval  # noqa: E402
from evaluator.hashing import canonical_json  # noqa: E402
from evaluator.lock import load_locked  # noqa: E402
from evaluator.result import ResultRecord  # noqa: E402
from evaluator.store import Store  # noqa: E402
from evaluator.taskset import load_task_set  # noqa: E402
from tests.helpers import make_set  # noqa: E402
from tests.pipeline.support import new_project  # noqa: E402


def generate(root: Path, tasks: int, agents: int, samples: int) -> Project:
    """Lock, gate and evaluate sample 0 for real, then multiply it to `samples`."""
    pairs = tuple((f"sim-{chr(97 + i)}", "sim-weak" if i % 2 == 0 else "sim-strong")
                  for i in range(agents))
    p = new_project(root, agents=pairs)
    shutil.rmtree(root / "tasks" / "mini")
    make_set(root / "tasks", "mini", tuple(f"t{i:02d}" for i in range(tasks)), gold_reps=1)
    make_set(root / "tasks", "other", ("t-other",), gold_reps=1)
    names = [a for a, _ in pairs]
    spec = {"task_set": "mini", "agents": names, "baseline": names[0], "samples": 1,
            "retry_budget": 2, "prices": "prices.yaml"}
    (root / "evals" / "mini.yaml").write_text(yaml.safe_dump(spec))
    (root / "evals" / "other.yaml").write_text(yaml.safe_dump(
        {**spec, "task_set": "other", "agents": names[:1]}))
    project = Project(root, tasks * agents * samples)
    for args in (("lock:mini", "lock:other"), ("-n", "2", "-P", "process", "gold:mini",
                                               "gold:other"),
                 ("-n", "2", "-P", "process", "eval:mini", "eval:other")):
        out = project.doit(*args)
        if out.rc != 0:
            raise SystemExit(f"could not make the project: `{out.cmd}`:\n{out.text[-3000:]}")
    (root / "evals" / "mini.yaml").write_text(yaml.safe_dump({**spec, "samples": samples}))
    _multiply(root, p.env)
    project.outs.clear()
    return project


def _multiply(root: Path, env: dict[str, str]) -> None:
    """Every sample past 0 as a copy of its sample 0, through the store's own API."""
    os.environ.update({k: v for k, v in env.items() if k.startswith("EVAL_")})
    ts = load_task_set("mini", root / "tasks")
    lock = load_locked(ts, str(root / "lock"))
    store = Store(root / "store", remote=None)
    plan = plan_eval(ts, lock, load_eval("mini", root / "evals"), store, root / "agents")
    first = {(pa.agent.name, pa.task.id): pa for pa in plan.attempts if pa.sample_idx == 0}
    for pa in plan.attempts:
        if pa.sample_idx == 0:
            continue
        pa0 = first[(pa.agent.name, pa.task.id)]
        src = store.read(AttemptRecord, pa0.key)
        assert src is not None, f"sample 0 of {pa.label} did not run"
        blobs = {}
        for name in ("trajectory", "conversation"):
            data = json.loads(store.get_blob(getattr(src, name)))
            blobs[name] = store.put_blob(canonical_json({**data, "key": pa.key}))
        store.write(pa.key, src.model_copy(update={"sample_idx": pa.sample_idx,
                                                   "seed": pa.seed, **blobs}))
        result = store.read(ResultRecord, pa0.result_key(src.patch))
        assert result is not None, f"sample 0 of {pa.label} was not graded"
        store.write(pa.result_key(src.patch), result.model_copy(
            update={"attempt": pa.key, "sample_idx": pa.sample_idx}))
    store.index.close()


def baseline(p: Project) -> dict[str, float]:
    """The done project's own commands, timed (and checked: a fault is judged against them)."""
    times = {}
    for target in ("plan:mini", "eval:mini", "report:mini"):
        t0 = time.monotonic()
        out = p.doit(target)
        times[target] = time.monotonic() - t0
        if out.rc != 0 or (target == "plan:mini" and f"0 of {p.attempts} attempts" not in
                           out.text):
            raise SystemExit(f"the generated project is not done: `{out.cmd}`:\n"
                             f"{out.text[-3000:]}")
    p.outs.clear()
    return times


def try_fault(fault, source: Path, work: Path, attempts: int) -> tuple[list[str], float]:
    """Inject `fault` into a fresh copy; what broke its promise, and the seconds it took."""
    dest = work / fault.name
    copy_project(source, dest)
    p = Project(dest, attempts)
    stored = {(k.parent.parent.name, k.stem)
              for k in (dest / "store" / "records").glob("*/*/*.json")}
    v = Verdict()
    t0 = time.monotonic()
    try:
        fault.run(p, v)
    except Exception as exc:  # the check itself broke: a finding too, never a crash
        v.broken.append(f"the check raised {type(exc).__name__}: {exc}")
    if not fault.shared:  # a fault in what both sets read concerns both
        other = p.doit("plan:other")
        v.check(other.rc == 0, f"`plan:other` (untouched) failed: {other.text[-300:]}")
    for out in p.outs:
        bare = [b for b in BARE if b in out.text]
        v.check(not bare, f"`{out.cmd}` shows {bare[0] if bare else ''}")
    aside = {(k.parent.parent.name, k.parent.name)
             for k in (dest / "store" / "corrupt").glob("*/*/*.json")}
    now = {(k.parent.parent.name, k.stem) for k in (dest / "store" / "records").glob("*/*/*.json")}
    lost = stored - now - aside - fault_removed(fault, dest)
    v.check(not lost, f"{len(lost)} stored record(s) lost, e.g. {sorted(lost)[:2]}")
    logs = work.parent / "logs"
    logs.mkdir(exist_ok=True)
    (logs / f"{fault.name}.txt").write_text("".join(
        f"$ {o.cmd}\n(exit {o.rc})\n{o.text}\n" for o in p.outs))
    return v.broken, time.monotonic() - t0


def fault_removed(fault, dest: Path) -> set[tuple[str, str]]:
    """Records the fault itself removed (it deletes one to make work): not the harness's loss."""
    mark = dest / ".removed.json"
    return {tuple(x) for x in json.loads(mark.read_text())} if mark.exists() else set()


_PREFIX = "check-faults-"


def _workdir() -> Path:
    """A fresh folder for the projects, named after this process, so that a later run removes it
    if this one is killed before its own cleanup (SIGKILL, a CI job cancelled)."""
    _sweep(Path(tempfile.gettempdir()))
    return Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))


def _sweep(tmp: Path) -> None:
    """Remove the folders of earlier runs whose process is gone."""
    for old in tmp.glob(f"{_PREFIX}*-*"):
        pid = old.name[len(_PREFIX):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            _remove(old)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(work: Path) -> None:
    """Remove `work` whole: a tmpfs a fault mounted under it first (a fault's own cleanup
    unmounts it; a killed run left it), then the files; say what could not be removed."""
    mounts = Path("/proc/self/mounts")
    if mounts.exists():
        inside = [m.split()[1] for m in mounts.read_text().splitlines()
                  if m.split()[1].startswith(f"{work}/")]
        for point in sorted(inside, reverse=True):
            subprocess.run(["umount", "-l", point], check=False, capture_output=True)
    shutil.rmtree(work, ignore_errors=True)
    if work.exists():
        print(f"check_faults: could not remove all of {work}; remove it by hand", file=sys.stderr)


def _interrupted(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does, through the cleanup in `main`."""
    raise KeyboardInterrupt(f"signal {signum}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=3)
    ap.add_argument("--agents", type=int, default=4)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--only", nargs="*", default=None, help="fault names to try")
    ap.add_argument("--keep", type=Path, default=None, help="keep the projects here")
    ap.add_argument("--project", type=Path, default=None,
                    help="a project an earlier --keep run generated (DIR/project): reused")
    ap.add_argument("--smoke", action="store_true",
                    help="a tiny project (1 task x 2 agents x 1 sample) and two faults")
    args = ap.parse_args()
    if args.smoke:
        args.tasks, args.agents, args.samples = 1, 2, 1
    faults = [f for f in battery() if (args.only is None or f.name in args.only)
              and (not args.smoke or f.smoke or args.only) and (os.geteuid() == 0
                                                                 or not f.root_only)]
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupted)
    work = args.keep or _workdir()
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.monotonic()
        if args.project is not None:
            spec = yaml.safe_load((args.project / "evals" / "mini.yaml").read_text())
            tasks = len([d for d in (args.project / "tasks" / "mini").iterdir() if d.is_dir()])
            args.tasks, args.agents, args.samples = tasks, len(spec["agents"]), spec["samples"]
            project = Project(args.project, tasks * len(spec["agents"]) * spec["samples"])
        else:
            project = generate(work / "project", args.tasks, args.agents, args.samples)
        made = time.monotonic() - t0
        times = baseline(project)
        print(f"project: {args.tasks} task(s) x {args.agents} agent(s) x {args.samples} "
              f"sample(s) = {project.attempts} attempts, made in {made:.0f} s; done "
              + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
        broken = 0
        for fault in faults:
            try:
                why, took = try_fault(fault, project.root, work / "faults", project.attempts)
            finally:  # each copy goes as soon as its fault is judged (the logs stay)
                _remove(work / "faults" / fault.name)
            broken += bool(why)
            print(f"{'BROKEN' if why else 'ok':7} {fault.name:34} {took:6.1f} s  {fault.what}")
            for line in why:
                print(f"        - {line}")
        print(f"{len(faults)} fault(s) tried on {project.attempts} attempts: {broken} broke "
              f"the promise")
        return 1 if broken else 0
    finally:  # also when a fault or the project failed, or the run was interrupted
        if not args.keep:
            _remove(work)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt as exc:  # cleaned up in `main`: a line, not a traceback
        print(f"check_faults: interrupted ({exc or 'Ctrl-C'})", file=sys.stderr)
        raise SystemExit(130) from None
