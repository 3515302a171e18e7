"""The Ray executor against the local one, and one engine against two, in one run.

A real Ray cluster on this machine (a head, worker A on the default Docker engine, later worker
B on a second dockerd), the simulated endpoint answering like a hosted model (2 s a reply by
default), and the same N attempts of one simulated agent on a two-task set run three times
through `doit eval` on fresh copies of one gold-gated store:

  local      EVAL_EXECUTOR unset, sandboxes = c, doit -n c
  ray x1     one worker node of c sandbox slots, doit -n c
  ray x2     two worker nodes of c slots each (B holds the images already), doit -n 2c

and prints each run's wall time and throughput, ray x2 / ray x1 (goal >= 1.8x) and the Ray
executor's overhead per attempt against local (goal <= 5%). Then the warm pool's effect on
time-to-first-command: open a sandbox and run `true` in it, cold against from a warm pool.

    .venv/bin/python benchmarks/bench_cluster.py [--attempts 8] [--slots 2] [--latency-ms 2000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.executor import WarmPool  # noqa: E402
from evaluator.sandbox import SandboxLimits, docker_client  # noqa: E402
from evaluator.simulated import start_simulated_endpoint  # noqa: E402
from evaluator.store import Store  # noqa: E402
from tests.engines import start_engine  # noqa: E402
from tests.executor.cluster import start_cluster  # noqa: E402
from tests.helpers import make_set  # noqa: E402
from tests.pipeline.conftest import Project  # noqa: E402


def _project(root: Path, samples: int, slots: int) -> Project:
    make_set(root / "tasks", "mini", ("add-bug", "add-bug-two"))
    (root / "evals").mkdir()
    shutil.copy(REPO / "evals" / "prices.yaml", root / "evals" / "prices.yaml")
    adir = root / "agents" / "sim-b"
    shutil.copytree(REPO / "agents" / "reference-strong", adir)
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec.update(name="sim-b")
    spec["model"].update(id="sim-strong")
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / "gated"), "EVAL_EVALS": str(root / "evals"),
           "EVAL_AGENTS": str(root / "agents"), "PYTHONPATH": str(REPO)}
    env.pop("EVAL_EXECUTOR", None)
    p = Project(root, env)
    for target in ("lock:mini", "gold:mini"):
        out = p.doit("-n", "2", "-P", "process", target)
        if out.returncode != 0:
            raise SystemExit(f"{target} failed:\n{out.stdout}\n{out.stderr}")
    p.eval_config(agents=["sim-b"], baseline="sim-b", samples=samples,
                  concurrency={"sandboxes": slots, "model_requests": 64})
    return p


def _timed_eval(p: Project, name: str, workers: int, executor: str | None) -> tuple[float, int]:
    store = p.root / name
    shutil.copytree(p.root / "gated", store, ignore=shutil.ignore_patterns("locks"))
    env = {**p.env, "EVAL_STORE": str(store)}
    if executor:
        env["EVAL_EXECUTOR"] = executor
    t0 = time.monotonic()
    out = Project(p.root, env).doit("-n", str(workers), "-P", "process", "eval:mini", timeout=3600)
    wall = time.monotonic() - t0
    if out.returncode != 0:
        raise SystemExit(f"eval ({name}) failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return wall, len(list(Store(store, remote=None).iter_records("attempt")))


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
    ap.add_argument("--attempts", type=int, default=8, help="attempts per run (even)")
    ap.add_argument("--slots", type=int, default=2, help="sandbox slots c per engine")
    ap.add_argument("--latency-ms", type=int, default=2000, help="simulated reply latency")
    args = ap.parse_args()
    c, n = args.slots, args.attempts
    root = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    engine = start_engine()
    cluster = start_cluster()
    endpoint = None
    try:
        print(f"setting up: lock and gold gate of a 2-task set, {n} attempts a run, c = {c}")
        p = _project(root, n // 2, c)
        sim = root / "sim.yaml"
        sim.write_text(yaml.safe_dump({"faults": {"latency_ms": args.latency_ms}}))
        endpoint = start_simulated_endpoint(root / "tasks", sim)
        p.env["EVAL_SIMULATED_URL"] = endpoint.base_url

        t_local, done = _timed_eval(p, "local", c, None)
        print(f"local   : {done} attempts in {t_local:6.1f}s  {done / t_local * 60:5.2f}/min")
        cluster.start_worker("a", c)
        t_ray1, done = _timed_eval(p, "ray1", c, f"ray:{cluster.gcs}")
        print(f"ray x1  : {done} attempts in {t_ray1:6.1f}s  {done / t_ray1 * 60:5.2f}/min")
        images = sorted({r["image"] for r in Store(p.root / "local", remote=None)
                         .iter_records("grade")})
        engine.load_from("unix:///var/run/docker.sock", *images)
        cluster.start_worker("b", c, engine.host)
        t_ray2, done = _timed_eval(p, "ray2", 2 * c, f"ray:{cluster.gcs}")
        print(f"ray x2  : {done} attempts in {t_ray2:6.1f}s  {done / t_ray2 * 60:5.2f}/min")
        print(f"two engines / one engine: {t_ray1 / t_ray2:.2f}x (goal >= 1.8x)")
        per = (t_ray1 - t_local) / (n / c)
        print(f"ray overhead: {(t_ray1 / t_local - 1) * 100:+.1f}% of the run, "
              f"{per:+.2f}s per attempt of {t_local / (n / c):.1f}s (goal <= 5%)")
    finally:
        if endpoint is not None:
            endpoint.close()
        cluster.stop()
        engine.stop()

    client = docker_client()
    image = next(i.id for i in client.images.list() if "evaluator/base:bookworm-1" in i.tags)
    pool = WarmPool(size=1, max_idle_s=60, client=client)
    try:
        cold = _ttfc(pool, image, warm=False, n=5)
        warm = _ttfc(pool, image, warm=True, n=5)
    finally:
        pool.close()
    print(f"time to first command: cold {statistics.median(cold) * 1000:.0f} ms, from the warm "
          f"pool {statistics.median(warm) * 1000:.0f} ms (median of 5; "
          f"{statistics.median(cold) / statistics.median(warm):.1f}x)")
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
