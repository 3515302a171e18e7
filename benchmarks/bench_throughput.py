"""Attempts per minute at concurrency 1, 4 and 8 on each sandbox backend, side by side, against
a plain `docker run` per command.

The same N attempts (agent reference-strong on the valid demo tasks, the simulated endpoint as
its model) are run through `run_attempt` by a thread pool of 1, 4 and 8 workers on each backend
(`--backends`: a column each), each config timed by wall clock; the backends take turns at each
concurrency, so a machine that gets busier mid-run slows them alike. Every attempt keeps its
seed in every config, so every config does the same work: the simulated model is a pure
function of (model, seed, task, step) and nothing here caches (a fresh temporary store,
`run_attempt` called directly rather than through the pipeline that skips stored attempts);
each config's steps are checked against the first's, on every backend.

The baseline replays, one attempt at a time, what the first backend's concurrency-1 run did:
the same model requests (recorded, sent again in order to the same endpoint) and each command
the attempt ran in its sandbox (checkout, the agent's commands, the patch extraction) as its own
`docker run --rm --network none --user U -w W <image> sh -c CMD`. State cannot carry from one
command to the next that way (an edit is gone before the tests run), so outputs differ: the
baseline measures the cost of a fresh container per command, which is the point of comparing.

    .venv/bin/python benchmarks/bench_throughput.py [--attempts 10] [--concurrency 1 4 8]
        [--backends docker podman ...] [--smoke]

Needs the Docker engine and the demo images and lock (`.venv/bin/doit lock:demo`), and each
backend named (podman: its service, `.ci/podman-up`); a backend gets the images from the Docker
engine by id on its first open, outside the timings. One that cannot open a sandbox is reported
as not run, never left out silently.

`--smoke`: one attempt at concurrency 1 on docker and daemonless, in a copy of the set cut to
its first task (locked again, so its image is built where it is missing), fixed costs once:
every step in about a minute, exiting non-zero when an attempt fails, a backend does not run or
the backends' steps differ.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks._demo import FIXTURES, demo_copy  # noqa: E402
from evaluator.agents import Agent, load_agent  # noqa: E402
from evaluator.attempts import attempt_key, attempt_material, attempt_seed, run_attempt  # noqa: E402
from evaluator.errors import EvalError  # noqa: E402
from evaluator.grading import grade_spec  # noqa: E402
from evaluator.hashing import hash_json  # noqa: E402
from evaluator.lock import TaskPin, load_locked  # noqa: E402
from evaluator.model import OpenAIClient, Prices  # noqa: E402
from evaluator.sandbox import BACKENDS, Sandboxes, SandboxLimits, open_backend  # noqa: E402
from evaluator.sandbox._labels import OWNER, owner_label  # noqa: E402
from evaluator.simulated import start_simulated_endpoint  # noqa: E402
from evaluator.store import Store  # noqa: E402
from evaluator.taskset import Task, load_task_set  # noqa: E402

AGENT = "reference-strong"
BENCH_LABEL = "evaluator.bench-owner"  # marks this run's `docker run` containers


@dataclass(frozen=True)
class Planned:
    task: Task
    pin: TaskPin
    limits: SandboxLimits
    sample_idx: int
    seed: int
    key: str

    @property
    def label(self) -> str:
        return f"{self.task.id}/{self.sample_idx}"


@dataclass
class Run:
    """What one attempt did and how long each part took."""

    events: list[tuple[str, Any]] = field(default_factory=list)  # ("exec"|"model", details)
    costs: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    wall_s: float = 0.0
    steps: int = 0
    exit_reason: str = ""
    error: str = ""

    def timed(self, what: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.costs[what].append(time.perf_counter() - t0)


class TimedSandbox:
    """Wraps a DockerSandbox: times each call and records each command with where it ran."""

    def __init__(self, inner: Any, run: Run) -> None:
        self._inner, self._run = inner, run

    def exec(self, cmd: str, **kw: Any) -> Any:
        where = {"workdir": kw.get("workdir") or self._inner.workdir,
                 "user": kw.get("user") or self._inner.user}
        self._run.events.append(("exec", {"cmd": cmd, **where}))
        return self._run.timed("sandbox exec", lambda: self._inner.exec(cmd, **kw))

    def read_file(self, path: str, *args: Any, **kw: Any) -> bytes:
        return self._run.timed("sandbox read_file", lambda: self._inner.read_file(path, *args, **kw))

    def put_files(self, *args: Any, **kw: Any) -> None:
        self._run.timed("sandbox put_files", lambda: self._inner.put_files(*args, **kw))

    def close(self) -> None:
        self._run.timed("sandbox close", self._inner.close)

    def __enter__(self) -> TimedSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TimedSandboxes:
    """Stands in for a backend's Sandboxes in one attempt: times `open` (create, start, copy
    workdir); the rest is the backend's."""

    def __init__(self, inner: Sandboxes, run: Run) -> None:
        self._inner, self._run = inner, run

    def open(self, image: str, limits: SandboxLimits, **kw: Any) -> TimedSandbox:
        return TimedSandbox(self._run.timed("sandbox open", lambda: self._inner.open(image, limits, **kw)),
                            self._run)

    def __getattr__(self, name: str) -> Any:  # backend(), alive(), images, ...
        return getattr(self._inner, name)


class RecordingModel:
    """Wraps the shared model client for one attempt: times and records each request."""

    def __init__(self, inner: OpenAIClient, run: Run) -> None:
        self._inner, self._run = inner, run

    def complete(self, messages: list[dict[str, str]], **kw: Any) -> Any:
        self._run.events.append(("model", {"messages": list(messages), **kw}))
        return self._run.timed("model request", lambda: self._inner.complete(messages, **kw))


def plan(n: int, agent: Agent, tasks: Path = REPO / "tasks",
         locks: Path = REPO / "lock") -> list[Planned]:
    ts = load_task_set("demo", tasks)
    lock = load_locked(ts, str(locks))
    tasks = [t for t in ts.tasks if t.id not in FIXTURES]
    out = []
    for i in range(n):
        task, sample_idx = tasks[i % len(tasks)], i // len(tasks)
        pin = lock.pin(task.id)
        limits = grade_spec(ts, task, lock).limits
        material = attempt_material(agent, task, pin, sample_idx, limits)
        out.append(Planned(task, pin, limits, sample_idx, attempt_seed(agent, sample_idx),
                           attempt_key(material)))
    return out


def run_config(concurrency: int, attempts: list[Planned], *, store: Store, sandboxes: Sandboxes,
               model: OpenAIClient, agent: Agent) -> tuple[float, list[Run]]:
    runs = [Run() for _ in attempts]

    def one(i: int) -> None:
        pa, run = attempts[i], runs[i]
        t0 = time.perf_counter()
        try:
            rec = run_attempt(store=store, sandboxes=TimedSandboxes(sandboxes, run),  # type: ignore[arg-type]
                              model=RecordingModel(model, run), agent=agent, task=pa.task, pin=pa.pin,
                              limits=pa.limits, key=hash_json([pa.key, "concurrency", concurrency,
                                                  sandboxes.backend().name]),
                              seed=pa.seed)
            run.steps, run.exit_reason = rec.steps, rec.exit_reason
        except Exception as exc:  # counted and reported, never silently part of the figure
            run.error = f"{type(exc).__name__}: {exc}"
        run.wall_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, range(len(attempts))))
    return time.perf_counter() - t0, runs


def docker_run(image: str, user: str, workdir: str, cmd: str, timeout_s: float) -> int:
    argv = ["docker", "run", "--rm", "--network", "none", "--label", f"{BENCH_LABEL}={os.getpid()}",
            "--user", user, "-w", workdir, image, "sh", "-c", cmd]
    try:
        return subprocess.run(argv, capture_output=True, timeout=timeout_s).returncode
    except subprocess.TimeoutExpired:
        return 124


def run_baseline(attempts: list[Planned], recorded: list[Run], model: OpenAIClient,
                 agent: Agent) -> tuple[float, list[Run]]:
    """Replay each attempt's model requests and commands in order, one `docker run` per command."""
    runs = [Run() for _ in attempts]
    timeout = agent.spec.limits.command_timeout_s + 30
    t0 = time.perf_counter()
    for pa, rec, run in zip(attempts, recorded, runs, strict=True):
        a0 = time.perf_counter()
        for kind, ev in rec.events:
            if kind == "model":
                body = dict(ev)
                msgs = body.pop("messages")
                run.timed("model request", lambda m=msgs, b=body: model.complete(m, **b))
            else:
                rc = run.timed("docker run", lambda e=ev, image=pa.pin.image: docker_run(
                    image, e["user"], e["workdir"], e["cmd"], timeout))
                run.costs["docker run nonzero"].append(float(rc != 0))
        run.wall_s = time.perf_counter() - a0
    return time.perf_counter() - t0, runs


def fixed_costs(attempts: list[Planned], sandboxes: Sandboxes, reps: int = 5) -> dict[str, float]:
    """Median seconds of the empty command each way; the first calls also warm up what is used
    once per process (leftover cleanup, client connection, image metadata, a backend's copy of
    the image), outside the timings."""
    pa = attempts[0]
    user, workdir = pa.task.spec.user, pa.task.spec.workdir
    times: dict[str, list[float]] = defaultdict(list)
    for i in range(reps + 1):
        t0 = time.perf_counter()
        sb = sandboxes.open(pa.pin.image, pa.limits, user=user, workdir=workdir, purpose="bench")
        t1 = time.perf_counter()
        sb.exec("true")
        t2 = time.perf_counter()
        sb.close()
        t3 = time.perf_counter()
        docker_run(pa.pin.image, user, workdir, "true", 60)
        t4 = time.perf_counter()
        if i:  # the first round is the warm-up
            for k, v in (("sandbox open", t1 - t0), ("sandbox exec `true`", t2 - t1),
                         ("sandbox close", t3 - t2), ("docker run `true`", t4 - t3)):
                times[k].append(v)
    return {k: statistics.median(v) for k, v in times.items()}


# The engines' own processes and those of containers: this run's show up there too.
_ENGINE = ("dockerd", "containerd", "runc", "docker-init", "docker-proxy", "podman", "conmon",
           "catatonit", "crun", "bwrap")


def _processes() -> dict[int, tuple[int, str, float]]:
    """pid -> (parent pid, name, CPU seconds so far), from /proc."""
    tick, out = os.sysconf("SC_CLK_TCK"), {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                raw = f.read()
        except OSError:
            continue  # it ended while listed
        fields = raw[raw.rindex(")") + 2:].split()
        out[int(entry)] = (int(fields[1]), raw[raw.index("(") + 1:raw.rindex(")")],
                           (int(fields[11]) + int(fields[12])) / tick)
    return out


def _in_container(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            text = f.read()
        return "docker" in text or "libpod" in text
    except OSError:
        return False


class Neighbours(threading.Thread):
    """Watches for other users of the machine, which slow every figure here: containers that are
    not this run's, and CPU time spent by processes outside this one's tree, the engine's and the
    containers'. A run that had them says so."""

    def __init__(self, engines: list[Any], every_s: float = 1.0) -> None:
        super().__init__(daemon=True)
        self._clients, self._every = engines, every_s  # Docker-API clients (Docker, podman)
        self._stop_event = threading.Event()
        self.max_foreign = 0
        self.foreign_cpu_s: dict[str, float] = defaultdict(float)
        self.started = time.perf_counter()
        self.ended = self.started

    def run(self) -> None:
        mine = {OWNER: owner_label(), BENCH_LABEL: str(os.getpid())}
        seen = _processes()
        while not self._stop_event.wait(self._every):
            foreign = 0
            for client in self._clients:
                try:
                    listed = client.api.containers()  # running ones; the labels come with the list
                    foreign += sum(1 for c in listed if not any(
                        (c.get("Labels") or {}).get(k) == v for k, v in mine.items()))
                except Exception:  # the engine was busy or a container went mid-listing
                    pass
            self.max_foreign = max(self.max_foreign, foreign)
            now = _processes()
            ours = {os.getpid()}
            for pid in sorted(now):  # parents mostly have lower pids; a second pass catches the rest
                if now[pid][0] in ours:
                    ours.add(pid)
            ours |= {pid for pid, (ppid, _, _) in now.items() if ppid in ours}
            for pid, (ppid, name, cpu) in now.items():
                used = cpu - seen[pid][2] if pid in seen else 0.0
                if (used > 0 and pid not in ours and ppid != 2 and pid != 2
                        and not name.startswith(_ENGINE) and not _in_container(pid)):
                    self.foreign_cpu_s[name] += used
            seen = now
        self.ended = time.perf_counter()

    def stop(self) -> None:
        self._stop_event.set()
        self.join()

    def report(self) -> str:
        wall = self.ended - self.started
        cpu = sum(self.foreign_cpu_s.values())
        top = ", ".join(f"{k} {v:.0f} s" for k, v in sorted(self.foreign_cpu_s.items(),
                                                           key=lambda kv: -kv[1])[:3] if v >= 0.5)
        busy = self.max_foreign > 0 or cpu > 0.05 * wall * (os.cpu_count() or 1)
        return (f"others on this machine: at most {self.max_foreign} other container(s) running; "
                f"{cpu:.0f} CPU s outside this run in {wall:.0f} s" + (f" ({top})" if top else "")
                + (" -- NOT A QUIET MACHINE, the figures are slowed by others" if busy else ""))


def per_attempt(runs: list[Run]) -> dict[str, tuple[int, float]]:
    """Per cost: (calls per attempt, mean seconds per call)."""
    merged: dict[str, list[float]] = defaultdict(list)
    for r in runs:
        for k, v in r.costs.items():
            merged[k].extend(v)
    return {k: (len(v), statistics.fmean(v) if v else 0.0) for k, v in sorted(merged.items())}


def bring_image(sandboxes: Sandboxes, image: str) -> None:
    """Copy `image` in from the Docker engine, by id, into a backend whose store reads the
    engine itself (the daemonless one: `copy_from`, as `evaluator images load` would; podman
    copies on its first open)."""
    images: Any = sandboxes.images
    if hasattr(images, "copy_from") and not images.has(image):
        t0 = time.perf_counter()
        images.copy_from(f"docker-daemon:{image}")
        print(f"  {sandboxes.backend().name}: copied {image[:19]} in {time.perf_counter() - t0:.1f} s",
              flush=True)


def open_backends(names: list[str], attempts: list[Planned], reps: int = 5
                  ) -> tuple[dict[str, Sandboxes], dict[str, str]]:
    """name -> its Sandboxes, warmed up and with its fixed costs printed; name -> why not run."""
    opened, skipped = {}, {}
    for name in names:
        if name not in BACKENDS:
            skipped[name] = f"not a backend of this checkout ({', '.join(BACKENDS)})"
            continue
        try:
            sandboxes = open_backend(name)
            for pa in {p.pin.image: p for p in attempts}.values():  # a backend's copy, untimed
                bring_image(sandboxes, pa.pin.image)
                sandboxes.open(pa.pin.image, pa.limits, user=pa.task.spec.user,
                               workdir=pa.task.spec.workdir, purpose="bench",
                               base_commit=pa.pin.base_commit).close()  # and its seal
            fixed = fixed_costs(attempts, sandboxes, reps)
        except (EvalError, OSError) as e:
            skipped[name] = str(e)[-400:]
            continue
        b = sandboxes.backend()
        print(f"  {name} ({b.version}, disk {b.disk or '?'}{', ' + b.detail if b.detail else ''}) "
              f"fixed costs, median of {reps}: " + ", ".join(f"{k} {v * 1000:.0f} ms"
                                                       for k, v in fixed.items()), flush=True)
        opened[name] = sandboxes
    return opened, skipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attempts", type=int, default=10,
                    help="attempts per config; beyond the 10 valid demo tasks, further samples (seeds)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8])
    ap.add_argument("--backends", nargs="+", default=list(BACKENDS),
                    help=f"sandbox backends, a column each (default: {' '.join(BACKENDS)})")
    ap.add_argument("--smoke", action="store_true",
                    help="one attempt, concurrency 1, docker and daemonless: does it still run?")
    args = ap.parse_args()
    if args.smoke:
        args.attempts, args.concurrency, args.backends = 1, [1], ["docker", "daemonless"]
    levels = sorted(set(args.concurrency) | {1})

    agent = load_agent(AGENT, REPO / "agents")
    with tempfile.TemporaryDirectory() as copy:
        if args.smoke:  # the set cut to one task, its image built here if the engine lacks it
            env = demo_copy(Path(copy), exploits=False, tasks=1, fixtures=False)
            attempts = plan(args.attempts, agent, Path(env["EVAL_TASKS"]),
                            Path(env["EVAL_LOCK_DIR"]))
        else:
            attempts = plan(args.attempts, agent)
        problems = measure(args, levels, agent, attempts)
    if args.smoke and problems:
        raise SystemExit("smoke: " + "; ".join(problems))


def measure(args: argparse.Namespace, levels: list[int], agent: Agent,
            attempts: list[Planned]) -> list[str]:
    """Run and print every config and the baseline; what went wrong (warnings, not run)."""
    m = agent.spec.model
    print(f"{len(attempts)} attempts ({AGENT} on {len({p.task.id for p in attempts})} demo tasks), "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, concurrency {levels}, backends "
          f"{args.backends}; the baseline replays the first backend's concurrency-1 run")

    with tempfile.TemporaryDirectory() as tmp, start_simulated_endpoint(REPO / "tasks") as endpoint:
        store = Store(Path(tmp) / "store")
        prices = Prices.load(REPO / "evals" / "prices.yaml")
        model = OpenAIClient(endpoint.base_url, m.id, timeout_s=m.timeout_s, max_retries=m.max_retries,
                             prices=prices, max_in_flight=max(levels))
        backends, skipped = open_backends(args.backends, attempts, 1 if args.smoke else 5)
        if not backends:
            raise SystemExit("no backend could open a sandbox: " + "; ".join(
                f"{k}: {v}" for k, v in skipped.items()))
        engines = [c for sb in backends.values() if (c := getattr(sb, "client", None)) is not None]
        neighbours = Neighbours(engines)
        neighbours.start()

        results: dict[str, dict[str, tuple[float, list[Run]]]] = {b: {} for b in backends}
        for c in levels:
            for name, sandboxes in backends.items():  # taking turns: drift slows all alike
                results[name][f"concurrency {c}"] = run_config(
                    c, attempts, store=store, sandboxes=sandboxes, model=model, agent=agent)
                print(f"  {name} concurrency {c}: {results[name][f'concurrency {c}'][0]:.1f} s "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
        first = results[next(iter(backends))]["concurrency 1"][1]
        baseline = run_baseline(attempts, first, model, agent)
        print(f"  baseline: {baseline[0]:.1f} s", flush=True)
        model.close()
        neighbours.stop()

    problems = []
    for backend, configs in results.items():
        for name, (_, runs) in configs.items():
            errors = [f"{pa.label}: {r.error}" for pa, r in zip(attempts, runs, strict=True)
                      if r.error]
            if errors:
                problems.append(f"{backend} {name}: {len(errors)} attempt(s) failed: "
                                + "; ".join(errors[:3]))
            if [r.steps for r in runs] != [r.steps for r in first]:
                problems.append(f"{backend} {name}: step counts differ from the first backend's "
                                "concurrency 1, the work is not identical")
            if [r.exit_reason for r in runs] != [r.exit_reason for r in first]:
                problems.append(f"{backend} {name}: exit reasons differ from the first "
                                "backend's concurrency 1")
    for problem in problems:
        print(f"WARNING {problem}")
    for name, why in skipped.items():
        print(f"NOT RUN {name}: {why}")
        problems.append(f"{name} not run: {why}")

    print(neighbours.report())
    n = len(attempts)
    base_s = baseline[0]
    names = list(results)
    ref = names[0]
    ratio = {b: max(12, len(f"{b}/{ref}") + 2) for b in names[1:]}  # each ratio column's width
    head = f"{'attempts/min':<22}" + "".join(f"{b:>12}" for b in names)
    head += "".join(f"{b + '/' + ref:>{ratio[b]}}" for b in names[1:]) + f"{'x baseline':>12}"
    print(f"\n{head}")
    print(f"{'docker run per cmd':<22}{n * 60 / base_s:>12.1f}")
    for c in levels:
        walls = {b: results[b][f"concurrency {c}"][0] for b in names}
        row = f"{'concurrency ' + str(c):<22}" + "".join(f"{n * 60 / walls[b]:>12.1f}" for b in names)
        row += "".join(f"{walls[ref] / walls[b]:>{ratio[b]}.2f}" for b in names[1:])
        row += f"{base_s / walls[ref]:>12.2f}"
        print(row)
    one = {b: results[b]["concurrency 1"][0] for b in names}
    if len(levels) > 1:
        print("scaling (x its own concurrency 1): " + "; ".join(
            f"{b} " + ", ".join(f"c{c} {one[b] / results[b][f'concurrency {c}'][0]:.2f}"
                                for c in levels if c != 1) for b in names))

    steps = [r.steps for r in first]
    print(f"\nper attempt: {statistics.fmean(steps):.1f} agent steps (min {min(steps)}, max {max(steps)}), "
          f"exit reasons {sorted({r.exit_reason for r in first})}")
    shown = [(f"{b} concurrency {c}", results[b][f"concurrency {c}"]) for c in levels for b in names]
    for name, (_, runs) in [shown[0], ("docker run per cmd", baseline), *shown[1:]]:
        print(f"{name}: attempt wall mean {statistics.fmean(r.wall_s for r in runs):.2f} s")
        for what, (calls, mean) in per_attempt(runs).items():
            if what == "docker run nonzero":
                print(f"    {'docker run exit != 0':<20} {calls * mean / n:5.1f} per attempt "
                      "(state is not carried)")
                continue
            print(f"    {what:<20} {calls / n:5.1f} per attempt x {mean * 1000:7.1f} ms "
                  f"= {calls * mean / n:6.2f} s per attempt")
    return problems


if __name__ == "__main__":
    main()
