"""The Ray executor against the local one, and one engine against two, in one run.

A real Ray cluster on this machine (a head, worker A on the default Docker engine, later worker
B on a second dockerd), the simulated endpoint answering like a hosted model (2 s a reply by
default), and the same N attempts of one simulated agent on a two-task set run through
`doit eval` on fresh copies of one gold-gated store:

  local      EVAL_EXECUTOR unset, sandboxes = c, doit -n c
  ray x1     one worker node of c sandbox slots, doit -n c
  ray x2     two worker nodes of c slots each (B holds the images already), doit -n 2c

Each of `--reps` rounds runs local, ray x1, then B joins for a ray x2 run and leaves (the
machine's load drifts, so the runs compared are close in time); the first round adds one ray x1
run through Ray Client (`ray://`, as a driver off the cluster connects). The other Ray runs
join by the GCS address (`ray:HOST:PORT`), as a driver on a cluster node does.

What is measured, from the attempt records' start and end and the run's wall clock:
- warm-up: from `doit`'s start to the first attempt's start (doit loading, the workers'
  connection to the cluster, the first placement); reported apart, not in the steady state.
- busy time per attempt: each slot's time from one attempt's start to the next one's start
  (the attempt itself plus everything the executor does between two attempts: storing the last
  record, placing the next on a node), averaged; the slots' idle time while the last attempts
  drain is left out, as is the warm-up.
- steady-state throughput: slots / busy time per attempt. Two engines / one is the ratio of the
  ray x2 and ray x1 steady states (goal >= 1.8x); the Ray executor's per-attempt overhead is ray
  x1's busy time per attempt against local's (goal <= 5%). Whole-run (wall) figures are printed
  beside them.
- one-time costs: starting each node's agent (an actor that lives as long as the cluster, made
  before the timed runs and timed apart), and each run's warm-up and tail (grades, summary).
- CPU seconds per attempt by who spent them: the doit driver, the agents' own processes, the
  Ray nodes, the simulated endpoint, the Docker engines and the sandboxes (both shared with
  anything else running on the machine), and the rest of the machine (`elsewhere`: other
  sessions' work), sampled from /proc every 0.5 s.

Then the warm pool's effect on time-to-first-command: open a sandbox and run `true` in it,
cold against from a warm pool.

    .venv/bin/python benchmarks/bench_cluster.py [--attempts 16] [--slots 2] [--reps 2]
                                                 [--latency-ms 2000] [--smoke]

`--smoke`: the same runs at the least size (2 attempts, 1 slot, one round, replies without
added latency, one gold rep, the warm pool timed once each way), every step once, exiting
non-zero when a run fails; the Ray Client run is left out (the same timed eval with a `ray://`
address, which tests/executor runs in CI).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.executor import WarmPool  # noqa: E402
from evaluator.images import BASE_TAG  # noqa: E402
from evaluator.sandbox import DockerSandboxes, SandboxLimits, docker_client  # noqa: E402
from evaluator.simulated import start_simulated_endpoint  # noqa: E402
from evaluator.store import Store  # noqa: E402
from tests.engines import start_engine  # noqa: E402
from tests.executor.cluster import start_cluster  # noqa: E402
from tests.pipeline.support import Project, new_project  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")
_DOCKER_CGROUP = "/sys/fs/cgroup/cpuacct/docker/cpuacct.usage"
_WHO = ("driver", "agents", "ray", "endpoint", "engines", "sandboxes", "elsewhere")


def _project(root: Path, samples: int, slots: int, gold_reps: int | None = None) -> Project:
    p = new_project(root, agents=(("sim-b", "sim-strong"),), max_retries=None, store="gated")
    if gold_reps is not None:
        set_yaml = root / "tasks" / "mini" / "set.yaml"
        set_yaml.write_text(yaml.safe_dump({**yaml.safe_load(set_yaml.read_text()),
                                            "gold_reps": gold_reps}))
    for target in ("lock:mini", "gold:mini"):
        out = p.doit("-n", "2", "-P", "process", target)
        if out.returncode != 0:
            raise SystemExit(f"{target} failed:\n{out.stdout}\n{out.stderr}")
    p.eval_config(agents=["sim-b"], baseline="sim-b", samples=samples,
                  concurrency={"sandboxes": slots, "model_requests": 64})
    return p


# --- CPU by who spent it ----------------------------------------------------------------------
def _who(pid: int, parents: dict[int, int], me: int) -> str:
    """What kind of process `pid` is: this benchmark's own (its descendants: the doit driver,
    the agents' processes, the Ray nodes, the second engine) or the machine's (the default
    engine and every container, shared with whatever else runs here)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        cgroup = Path(f"/proc/{pid}/cgroup").read_bytes()
    except OSError:
        return "elsewhere"
    if b"/docker/" in cgroup or b"docker-" in cgroup:
        return "sandboxes"
    name = cmd.split(b" ", 1)[0].rsplit(b"/", 1)[-1]
    engine = name in (b"dockerd", b"containerd", b"containerd-shim-runc-v2", b"runc",
                      b"docker-init", b"docker-proxy")
    up, mine = pid, False
    while up > 1:
        if up == me:
            mine = True
            break
        up = parents.get(up, 0)
    if engine:
        return "engines"
    if not mine:
        return "elsewhere"
    if pid == me:
        return "endpoint"  # this process serves the simulated endpoint and does nothing else
    if b"evaluator.agents" in cmd:
        return "agents"
    if b"doit" in cmd:
        return "driver"
    return "ray"  # the nodes' processes: gcs, raylets, the node agents, Ray's helpers


class CpuSampler:
    """CPU seconds per kind of process over a window: each process's time as last seen, every
    0.5 s (one that lives less than that is partly missed; the machine's total from /proc/stat
    is exact, and the difference is put under `elsewhere`)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, float]] = {}
        self._base: dict[str, float] = {}
        self._stop = threading.Event()
        self._me = os.getpid()

    def _scan(self) -> dict[str, tuple[str, float]]:
        stats: dict[int, list[str]] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    stats[int(entry.name)] = (Path(f"/proc/{entry.name}/stat").read_text()
                                              .rsplit(")", 1)[1].split())
                except (OSError, IndexError):
                    continue
        parents = {pid: int(f[1]) for pid, f in stats.items()}
        now = {}
        for pid, fields in stats.items():
            key = f"{pid}:{fields[19]}"  # a pid and its start time name one process
            kind = self._seen[key][0] if key in self._seen else _who(pid, parents, self._me)
            now[key] = (kind, (int(fields[11]) + int(fields[12])) / _TICK)
        return now

    @staticmethod
    def _containers() -> float | None:
        """Every container's CPU seconds so far: the docker cgroup counts its removed children
        too (cgroup v1), so nothing short-lived is missed."""
        try:
            return int(Path(_DOCKER_CGROUP).read_text()) / 1e9
        except (OSError, ValueError):
            return None

    @staticmethod
    def _machine() -> float:
        parts = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        return (sum(int(x) for x in parts) - int(parts[3]) - int(parts[4])) / _TICK

    def __enter__(self) -> CpuSampler:
        self._base = {k: c for k, (_, c) in self._scan().items()}
        self._total0, self._containers0 = self._machine(), self._containers()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(0.5):
            self._seen.update(self._scan())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._seen.update(self._scan())
        self.total = self._machine() - self._total0
        end = self._containers()
        self.in_containers = (None if end is None or self._containers0 is None
                              else end - self._containers0)

    def by_kind(self) -> dict[str, float]:
        spent = dict.fromkeys(_WHO, 0.0)
        for key, (kind, cpu) in self._seen.items():
            spent[kind] += cpu - self._base.get(key, 0.0)
        if self.in_containers is not None:
            spent["sandboxes"] = self.in_containers
        spent["elsewhere"] += max(0.0, self.total - sum(spent.values()))
        return spent


# --- one timed run ----------------------------------------------------------------------------
@dataclass
class Run:
    name: str
    slots: int
    wall: float
    warmup: float
    tail: float
    busy: float  # seconds of a slot per attempt, steady state
    attempts: int
    cpu: dict[str, float] = field(default_factory=dict)

    @property
    def steady(self) -> float:
        return self.slots / self.busy * 60

    @property
    def per_min(self) -> float:
        return self.attempts / self.wall * 60


def _busy_per_attempt(spans: list[tuple[float, float]], slots: int) -> float:
    """Mean time from an attempt's start to the next start on its slot; a slot's last attempt
    counts its own length plus the mean gap. Slots are rebuilt from the records: each start
    after the first `slots` follows the latest finish not yet followed."""
    spans = sorted(spans)
    free = sorted(f for _, f in spans[:slots])
    gaps = []
    for start, finish in spans[slots:]:
        before = [f for f in free if f <= start + 0.05] or free[:1]
        prev = before[-1]
        free.remove(prev)
        gaps.append(max(0.0, start - prev))
        free = sorted([*free, finish])
    mean_gap = statistics.mean(gaps) if gaps else 0.0
    return statistics.mean(f - s for s, f in spans) + mean_gap


def _timed_eval(p: Project, name: str, slots: int, executor: str | None) -> Run:
    store = p.root / name
    shutil.copytree(p.root / "gated", store, ignore=shutil.ignore_patterns("locks"))
    env = {**p.env, "EVAL_STORE": str(store)}
    if executor:
        env["EVAL_EXECUTOR"] = executor
    with CpuSampler() as cpu:
        t0 = time.time()
        out = Project(p.root, env).doit("-n", str(slots), "-P", "process", "eval:mini",
                                        timeout=3600)
        wall = time.time() - t0
    if out.returncode != 0:
        raise SystemExit(f"eval ({name}) failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    spans = [(r["started"], r["finished"])
             for r in Store(store, remote=None).iter_records("attempt")]
    run = Run(name, slots, wall, min(s for s, _ in spans) - t0,
              t0 + wall - max(f for _, f in spans), _busy_per_attempt(spans, slots), len(spans),
              cpu.by_kind())
    shutil.rmtree(store, ignore_errors=True)
    print(f"  {name:7} {run.attempts} attempts: wall {run.wall:6.1f}s ({run.per_min:5.2f}/min), "
          f"warm-up {run.warmup:4.1f}s, busy {run.busy:5.2f}s/attempt/slot "
          f"(steady {run.steady:5.2f}/min), tail {run.tail:4.1f}s", flush=True)
    return run


def _agents_up(gcs: str) -> float:
    """Start (or find) every node's agent before the timed runs: once per cluster."""
    from evaluator.executor._ray import RayExecutor

    t0 = time.monotonic()
    RayExecutor(gcs).describe()
    return time.monotonic() - t0


def _median(runs: list[Run], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in runs)


def _report(local: list[Run], ray1: list[Run], ray2: list[Run]) -> None:
    rows = [("local", local), ("ray x1", ray1), ("ray x2", ray2)]
    print("\nmedians of each kind of run:")
    print(f"{'run':8} {'wall s':>7} {'/min':>6} {'warm-up s':>9} {'tail s':>7} "
          f"{'busy s/att':>10} {'steady/min':>10}   CPU s per attempt: "
          + " ".join(f"{w:>9}" for w in _WHO))
    for name, runs in rows:
        cpu = {w: statistics.median(r.cpu[w] / r.attempts for r in runs) for w in _WHO}
        print(f"{name:8} {_median(runs, 'wall'):7.1f} {_median(runs, 'per_min'):6.2f} "
              f"{_median(runs, 'warmup'):9.1f} {_median(runs, 'tail'):7.1f} "
              f"{_median(runs, 'busy'):10.2f} {_median(runs, 'steady'):10.2f}   "
              f"{'':19}" + " ".join(f"{cpu[w]:9.2f}" for w in _WHO))
    steady = [r2.steady / r1.steady for r1, r2 in zip(ray1, ray2, strict=True)]
    whole = [r2.per_min / r1.per_min for r1, r2 in zip(ray1, ray2, strict=True)]
    print(f"\ntwo engines / one engine, steady state: {statistics.median(steady):.2f}x "
          f"(goal >= 1.8x; rounds: {', '.join(f'{x:.2f}x' for x in steady)}); whole runs, "
          f"warm-up and drain included: {statistics.median(whole):.2f}x")
    pairs = [r.busy / lo.busy - 1 for lo, r in zip(local, ray1, strict=True)]
    walls = [r.wall - lo.wall for lo, r in zip(local, ray1, strict=True)]
    print(f"Ray per-attempt overhead against local (busy time per attempt, steady state): "
          f"{statistics.median(pairs) * 100:+.1f}% (goal <= 5%; pairs: "
          + ", ".join(f"{x * 100:+.1f}%" for x in pairs) + ")")
    print(f"Ray one-time cost per run (whole run against local, same attempts): "
          f"{statistics.median(walls):+.1f}s, of which warm-up "
          f"{_median(ray1, 'warmup') - _median(local, 'warmup'):+.1f}s and tail "
          f"{_median(ray1, 'tail') - _median(local, 'tail'):+.1f}s")


def _ttfc(pool: WarmPool, image: str, warm: bool, n: int) -> list[float]:
    limits = SandboxLimits(sandbox_timeout_s=120)
    times = []
    for i in range(n):
        if warm:
            pool.expect(f"t{i}", image, limits, user="1000:1000", workdir="/tmp/w", purpose="b")
            deadline = time.monotonic() + 60
            while pool.ready() < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            pool.bind(f"t{i}")
        t0 = time.monotonic()
        with pool.open(image, limits, user="1000:1000", workdir="/tmp/w", purpose="b") as sb:
            sb.exec("true")
            times.append(time.monotonic() - t0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--attempts", type=int, default=16, help="attempts per run (even)")
    ap.add_argument("--slots", type=int, default=2, help="sandbox slots c per engine")
    ap.add_argument("--reps", type=int, default=2, help="local / ray x1 pairs, ray x2 runs")
    ap.add_argument("--latency-ms", type=int, default=2000, help="simulated reply latency")
    ap.add_argument("--smoke", action="store_true",
                    help="2 attempts, 1 slot, one round, no latency, no Ray Client: does it run?")
    args = ap.parse_args()
    if args.smoke:
        args.attempts, args.slots, args.reps, args.latency_ms = 2, 1, 1, 0
    c, n = args.slots, args.attempts
    root = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    engine = start_engine()
    cluster = start_cluster()
    endpoint = None
    local: list[Run] = []
    ray1: list[Run] = []
    ray2: list[Run] = []
    try:
        print(f"setting up: lock and gold gate of a 2-task set, {n} attempts a run, c = {c}, "
              f"replies {args.latency_ms} ms", flush=True)
        p = _project(root, n // 2, c, 1 if args.smoke else None)
        sim = root / "sim.yaml"
        sim.write_text(yaml.safe_dump({"faults": {"latency_ms": args.latency_ms}}))
        endpoint = start_simulated_endpoint(root / "tasks", sim)
        p.env["EVAL_SIMULATED_URL"] = endpoint.base_url
        images = sorted({r["image"] for r in Store(p.root / "gated", remote=None)
                         .iter_records("grade")})
        engine.load_from("unix:///var/run/docker.sock", *images)  # B holds them, as A does
        cluster.start_worker("a", c)
        print(f"node agent of A started in {_agents_up(cluster.gcs):.1f}s (once per cluster)")
        client = None
        for rep in range(args.reps):  # B joins for the x2 run and leaves after it, each rep
            local.append(_timed_eval(p, f"local{rep}", c, None))
            ray1.append(_timed_eval(p, f"ray1-{rep}", c, f"ray:{cluster.gcs}"))
            if client is None and not args.smoke:
                client = _timed_eval(p, "client", c, cluster.address)
            b = cluster.start_worker(f"b{rep}", c, engine.host)
            print(f"node agent of B started in {_agents_up(cluster.gcs):.1f}s (once per "
                  "cluster)")
            ray2.append(_timed_eval(p, f"ray2-{rep}", 2 * c, f"ray:{cluster.gcs}"))
            b.kill()
            while any(n["NodeID"] == b.node_id for n in cluster.alive()):
                time.sleep(0.5)
        _report(local, ray1, ray2)
        if client is None:
            print("Ray Client: not run (--smoke)")
        else:
            print(f"Ray Client (EVAL_EXECUTOR=ray://, a driver off the cluster), x1: busy "
                  f"{(client.busy / _median(local, 'busy') - 1) * 100:+.1f}% per attempt against "
                  f"local, warm-up {client.warmup:.1f}s (ray: {_median(ray1, 'warmup'):.1f}s), "
                  f"whole run {client.wall - _median(local, 'wall'):+.1f}s")
    finally:
        if endpoint is not None:
            endpoint.close()
        cluster.stop()
        engine.stop()

    client = docker_client()
    pool = WarmPool(size=1, max_idle_s=60, sandboxes=DockerSandboxes(client))
    try:
        image = client.images.get(BASE_TAG).id
        times = 1 if args.smoke else 5
        cold = _ttfc(pool, image, warm=False, n=times)
        warm = _ttfc(pool, image, warm=True, n=times)
    finally:
        pool.close()
    print(f"time to first command: cold {statistics.median(cold) * 1000:.0f} ms, from the warm "
          f"pool {statistics.median(warm) * 1000:.0f} ms (median of {times}; "
          f"{statistics.median(cold) / statistics.median(warm):.1f}x)")
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
