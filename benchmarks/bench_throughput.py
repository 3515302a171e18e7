"""Attempts per minute at concurrency 1, 4 and 8 against a plain `docker run` per command.

The same N attempts (agent reference-strong on the valid demo tasks, the simulated endpoint as
its model) are run through `run_attempt` by a thread pool of 1, 4 and 8 workers, each config
timed by wall clock. Every attempt keeps its seed in every config, so every config does the
same work: the simulated model is a pure function of (model, seed, task, step) and nothing
here caches (a fresh temporary store, `run_attempt` called directly rather than through the
pipeline that skips stored attempts); each config's steps are checked against the first's.

The baseline replays, one attempt at a time, what the concurrency-1 run did: the same model
requests (recorded, sent again in order to the same endpoint) and each command the attempt ran
in its sandbox (checkout, the agent's commands, the patch extraction) as its own
`docker run --rm --network none --user U -w W <image> sh -c CMD`. State cannot carry from one
command to the next that way (an edit is gone before the tests run), so outputs differ: the
baseline measures the cost of a fresh container per command, which is the point of comparing.

    .venv/bin/python benchmarks/bench_throughput.py [--attempts 10] [--concurrency 1 4 8]

Needs the Docker engine and the demo images and lock (`.venv/bin/doit lock:demo`).
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

from evaluator.agents import Agent, load_agent  # noqa: E402
from evaluator.attempts import attempt_key, attempt_material, attempt_seed, run_attempt  # noqa: E402
from evaluator.grading import grade_spec  # noqa: E402
from evaluator.hashing import hash_json  # noqa: E402
from evaluator.lock import TaskPin, load_locked  # noqa: E402
from evaluator.model import OpenAIClient, Prices  # noqa: E402
from evaluator.sandbox import DockerSandboxes, SandboxLimits  # noqa: E402
from evaluator.sandbox._leftovers import OWNER, owner_label  # noqa: E402
from evaluator.simulated import start_simulated_endpoint  # noqa: E402
from evaluator.store import Store  # noqa: E402
from evaluator.taskset import Task, load_task_set  # noqa: E402

FIXTURES = {"flaky-tag-export", "broken-gold-duration-parse"}  # gold-gate fixtures, not valid tasks
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
    """Stands in for DockerSandboxes in one attempt: times `open` (create, start, copy workdir)."""

    def __init__(self, inner: DockerSandboxes, run: Run) -> None:
        self._inner, self._run = inner, run

    def open(self, image: str, limits: SandboxLimits, **kw: Any) -> TimedSandbox:
        return TimedSandbox(self._run.timed("sandbox open", lambda: self._inner.open(image, limits, **kw)),
                            self._run)


class RecordingModel:
    """Wraps the shared model client for one attempt: times and records each request."""

    def __init__(self, inner: OpenAIClient, run: Run) -> None:
        self._inner, self._run = inner, run

    def complete(self, messages: list[dict[str, str]], **kw: Any) -> Any:
        self._run.events.append(("model", {"messages": list(messages), **kw}))
        return self._run.timed("model request", lambda: self._inner.complete(messages, **kw))


def plan(n: int, agent: Agent) -> list[Planned]:
    ts = load_task_set("demo", REPO / "tasks")
    lock = load_locked(ts, str(REPO / "lock"))
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


def run_config(concurrency: int, attempts: list[Planned], *, store: Store, sandboxes: DockerSandboxes,
               model: OpenAIClient, agent: Agent) -> tuple[float, list[Run]]:
    runs = [Run() for _ in attempts]

    def one(i: int) -> None:
        pa, run = attempts[i], runs[i]
        t0 = time.perf_counter()
        try:
            rec = run_attempt(store=store, sandboxes=TimedSandboxes(sandboxes, run),  # type: ignore[arg-type]
                              model=RecordingModel(model, run), agent=agent, task=pa.task, pin=pa.pin,
                              limits=pa.limits, key=hash_json([pa.key, "concurrency", concurrency]),
                              seed=pa.seed)
            run.steps, run.exit_reason = rec["steps"], rec["exit_reason"]
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


def fixed_costs(attempts: list[Planned], sandboxes: DockerSandboxes, reps: int = 5) -> dict[str, float]:
    """Median seconds of the empty command each way; the first calls also warm up what is used
    once per process (leftover cleanup, client connection, image metadata), outside the timings."""
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


# The engine's own processes and those of containers: this run's show up there too.
_ENGINE = ("dockerd", "containerd", "runc", "docker-init", "docker-proxy")


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
            return "docker" in f.read()
    except OSError:
        return False


class Neighbours(threading.Thread):
    """Watches for other users of the machine, which slow every figure here: containers that are
    not this run's, and CPU time spent by processes outside this one's tree, the engine's and the
    containers'. A run that had them says so."""

    def __init__(self, sandboxes: DockerSandboxes, every_s: float = 1.0) -> None:
        super().__init__(daemon=True)
        self._client, self._every = sandboxes.client, every_s
        self._stop_event = threading.Event()
        self.max_foreign = 0
        self.foreign_cpu_s: dict[str, float] = defaultdict(float)
        self.started = time.perf_counter()
        self.ended = self.started

    def run(self) -> None:
        mine = {OWNER: owner_label(), BENCH_LABEL: str(os.getpid())}
        seen = _processes()
        while not self._stop_event.wait(self._every):
            try:
                listed = self._client.api.containers()  # running ones; the labels come with the list
                foreign = sum(1 for c in listed
                              if not any((c.get("Labels") or {}).get(k) == v for k, v in mine.items()))
                self.max_foreign = max(self.max_foreign, foreign)
            except Exception:  # the engine was busy or a container went mid-listing; next sample
                pass
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--attempts", type=int, default=10,
                    help="attempts per config; beyond the 10 valid demo tasks, further samples (seeds)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8])
    args = ap.parse_args()
    levels = sorted(set(args.concurrency) | {1})

    agent = load_agent(AGENT, REPO / "agents")
    attempts = plan(args.attempts, agent)
    m = agent.spec.model
    print(f"{len(attempts)} attempts ({AGENT} on {len({p.task.id for p in attempts})} demo tasks), "
          f"{os.cpu_count()} CPUs, concurrency {levels}; the baseline replays the concurrency-1 run")

    with tempfile.TemporaryDirectory() as tmp, start_simulated_endpoint(REPO / "tasks") as endpoint:
        store = Store(Path(tmp) / "store")
        prices = Prices.load(REPO / "evals" / "prices.yaml")
        model = OpenAIClient(endpoint.base_url, m.id, timeout_s=m.timeout_s, max_retries=m.max_retries,
                             prices=prices, max_in_flight=max(levels))
        sandboxes = DockerSandboxes()
        neighbours = Neighbours(sandboxes)
        neighbours.start()
        fixed = fixed_costs(attempts, sandboxes)
        print("  fixed costs, idle machine (median of 5): " + ", ".join(
            f"{k} {v * 1000:.0f} ms" for k, v in fixed.items()), flush=True)

        results: dict[str, tuple[float, list[Run]]] = {}
        for c in levels:
            results[f"concurrency {c}"] = run_config(c, attempts, store=store, sandboxes=sandboxes,
                                                     model=model, agent=agent)
            print(f"  concurrency {c}: {results[f'concurrency {c}'][0]:.1f} s", flush=True)
        results["docker run per cmd"] = run_baseline(attempts, results["concurrency 1"][1], model, agent)
        print(f"  baseline: {results['docker run per cmd'][0]:.1f} s", flush=True)
        model.close()
        neighbours.stop()

    first = results["concurrency 1"][1]
    for name, (_, runs) in results.items():
        errors = [f"{pa.label}: {r.error}" for pa, r in zip(attempts, runs, strict=True) if r.error]
        if errors:
            print(f"WARNING {name}: {len(errors)} attempt(s) failed: " + "; ".join(errors[:3]))
        if name.startswith("concurrency") and [r.steps for r in runs] != [r.steps for r in first]:
            print(f"WARNING {name}: step counts differ from concurrency 1, the work is not identical")

    print(neighbours.report())
    n = len(attempts)
    base_s = results["docker run per cmd"][0]
    one_s = results["concurrency 1"][0]
    print(f"\n{'mode':<22}{'wall s':>8}{'attempts/min':>14}{'x baseline':>12}{'x conc. 1':>11}")
    for name, (wall, _) in [("docker run per cmd", results["docker run per cmd"])] + [
            (f"concurrency {c}", results[f"concurrency {c}"]) for c in levels]:
        print(f"{name:<22}{wall:>8.1f}{n * 60 / wall:>14.1f}{base_s / wall:>12.2f}{one_s / wall:>11.2f}")

    steps = [r.steps for r in first]
    print(f"\nper attempt: {statistics.fmean(steps):.1f} agent steps (min {min(steps)}, max {max(steps)}), "
          f"exit reasons {sorted({r.exit_reason for r in first})}")
    for name in ["concurrency 1", "docker run per cmd", *(f"concurrency {c}" for c in levels if c != 1)]:
        wall, runs = results[name]
        print(f"{name}: attempt wall mean {statistics.fmean(r.wall_s for r in runs):.2f} s")
        for what, (calls, mean) in per_attempt(runs).items():
            if what == "docker run nonzero":
                print(f"    {'docker run exit != 0':<20} {calls * mean / n:5.1f} per attempt "
                      "(state is not carried)")
                continue
            print(f"    {what:<20} {calls / n:5.1f} per attempt x {mean * 1000:7.1f} ms "
                  f"= {calls * mean / n:6.2f} s per attempt")


if __name__ == "__main__":
    main()
