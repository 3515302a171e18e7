"""Does the harness stay a rounding error beside the sandboxes from 1,000 to 100,000 attempts?

A lab's shape: a set of many small tasks sharing one image, 10 agent versions, 5 samples each,
so that the plan covers N attempts (N / 50 tasks). The records are a real run's (`make demo`'s
store by default, or the project `--template` names), copied per planned attempt and re-keyed
through the real planner (`scale_project.py`). At each size it times, as separate processes:

- `doit plan:<set>` with half the attempts done;
- a real `doit eval:<set>` that runs the last `--run` attempts (sandboxes, simulated model and
  grades, with everything else stored): the harness's cost per attempt run as the store grows;
- a no-op `doit eval:<set>` (everything stored);
- `doit report:<set>`, first and again (the site is written only where a page changed);
- the HTTP API's `GET /v1/leaderboard` and `/v1/compare`, first and again (the median of five
  more, on one connection);
- `Store.reindex()`.

It prints wall seconds, CPU seconds (the process and its children) and peak RSS per command and
size, and how each grows between sizes (x CPU for x attempts).

    .venv/bin/python benchmarks/bench_scale.py [--sizes 1000 10000 100000] [--run 4]
    .venv/bin/python benchmarks/bench_scale.py --smoke     # tiny sizes: does it still run?

Before and after a change, side by side: `--before DIR` names a checkout of the code before it
(`git worktree add --detach DIR main`, with a `.venv` link); the report and the API then run
with that code first, in a reports folder of its own, and with this checkout's, on the same
project at each size. `--keep DIR --reuse` starts a size from the project a run before left
whole there (no plan or eval figures then: the report and the API only).

`--smoke`: 100 and 300 attempts, one of them run for real at each size. Without `--template` it
needs no `make demo`: its template is a real run it makes first, the demo cut to its first task
(no fixtures, no exploits, one gold rep, one attempt of reference-strong) in a store of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale_project import (  # noqa: E402
    ScaleProject,
    Template,
    build_project,
    land_attempts,
    plan_of,
    read_template,
)

from benchmarks._demo import SET, demo_copy  # noqa: E402

AGENTS, SAMPLES = 10, 5
_AGAIN = 5  # requests after the first, whose median is the `again` figure
DOIT = [sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py")]


@dataclass
class Figure:
    wall: float
    cpu: float
    rss_mb: float
    note: str = ""


# Peak RSS is read by a small launcher, not from this process's wait4: a child made by a
# fork (or vfork) of this benchmark inherits its high-water mark, so every command at 100,000
# attempts read as this process's 500 MB plan. The launcher is a fresh interpreter of ~10 MB;
# it spawns the command and reports the command's own rusage (its children's included).
_LAUNCH = """
import json, os, sys
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, u = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    json.dump([u.ru_utime + u.ru_stime, u.ru_maxrss], f)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run(cmd: list[str], env: dict[str, str], cwd: Path, check: str = "") -> Figure:
    """One command as its own process: wall, CPU of it and its children, peak RSS."""
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as usage:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _LAUNCH, usage.name, *cmd], env=env,
                              cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        cpu, maxrss_kb = json.loads(usage.read() or "[0, 0]")
    if proc.returncode != 0 or (check and check not in text):
        raise SystemExit(f"{' '.join(cmd[-2:])} failed (exit {proc.returncode}); its output:\n"
                         f"{text[-4000:]}")
    return Figure(wall, cpu, maxrss_kb / 1024)


def api(project: ScaleProject, env: dict[str, str], agents: list[str],
        label: str = "") -> dict[str, Figure]:
    """Leaderboard and compare through a real server: the first request, and the median of
    `_AGAIN` more on the same connection."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "evaluator", "serve", "--port", str(port)],
                              env=env, cwd=project.root, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    figures = {}
    try:
        _wait_up(base)
        # One client, its connection kept: a new client per request (its TLS context made
        # again) was most of an answer's time, and a loaded machine's noise is one request's.
        with httpx.Client(timeout=3600) as client:
            for name, path, params in (
                    ("leaderboard", "/leaderboard", {"task_set": project.name}),
                    ("compare", "/compare", {"task_set": project.name, "a": agents[1],
                                             "b": agents[0]})):
                walls = []
                for _ in range(1 + _AGAIN):
                    t0 = time.perf_counter()
                    r = client.get(base + path, params=params)
                    walls.append(time.perf_counter() - t0)
                    if r.status_code != 200:
                        raise SystemExit(f"GET {path}: {r.status_code} {r.text[:2000]}")
                again = sorted(walls[1:])[len(walls[1:]) // 2]
                for turn, wall in (("first", walls[0]), (f"again, median of {_AGAIN}", again)):
                    figures[f"GET /v1/{name} ({turn}){label}"] = Figure(wall, float("nan"),
                                                                         float("nan"))
    finally:
        server.terminate()
        server.wait(30)
    return figures


def _wait_up(base: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(base.rsplit("/v1", 1)[0] + "/openapi.json", timeout=2).is_success:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("the API server did not come up in 120 s")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_size(t: Template, root: Path, n: int, to_run: int,
             before: Path | None = None) -> dict[str, Figure]:
    tasks = max(1, n // (AGENTS * SAMPLES))
    t0 = time.perf_counter()
    landed = root / ".landed"  # the project is whole: `--keep` with `--reuse` starts from it
    figures: dict[str, Figure] = {}
    if landed.is_file():
        project = ScaleProject(root, "scale", plan_of(root, "scale"))
        env = {**os.environ, **project.env, "PYTHONPATH": str(REPO)}
        env.pop("EVAL_SIMULATED_URL", None)
        print(f"  {len(project.plan.attempts)} attempts planned on {tasks} tasks, all landed "
              f"(reused)", flush=True)
    else:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        project = build_project(t, root, "scale", tasks, AGENTS, SAMPLES)
        env = {**os.environ, **project.env, "PYTHONPATH": str(REPO)}
        env.pop("EVAL_SIMULATED_URL", None)
        planned = list(project.plan.attempts)
        land_attempts(project, t, planned[0::2])
        print(f"  {len(planned)} attempts planned on {tasks} tasks; half landed in "
              f"{time.perf_counter() - t0:.1f}s", flush=True)
        figures["doit plan (half done)"] = run([*DOIT, "plan:scale"], env, root, "would run")
        rest = planned[1::2]
        run_now, rest = rest[-to_run:] if to_run else [], rest[:-to_run] if to_run else rest
        land_attempts(project, t, rest)
        if run_now:
            f = run([*DOIT, "-n", "2", "-P", "process", "eval:scale"], env, root,
                    "eval of task set")
            f.note = f"{len(run_now)} run: {f.cpu / len(run_now):.2f} CPU s each"
            figures[f"doit eval (runs {len(run_now)})"] = f
        figures["doit eval (no-op)"] = run([*DOIT, "eval:scale"], env, root, "eval of task set")
        if run_now:
            ran, noop = figures[f"doit eval (runs {len(run_now)})"], figures["doit eval (no-op)"]
            # What running an attempt adds beyond what any eval of this set costs (planning,
            # the index): the sandboxes', agent's and grader's work plus the harness's.
            ran.note += (f"; {(ran.cpu - noop.cpu) / len(run_now):.2f} CPU s each beyond the "
                         f"no-op eval's")
        landed.touch()
    # The report and the API, with the code `--before` names first (its own reports folder),
    # then this checkout's: the same project, side by side.
    for label, code in ([(" before", before)] if before else []) + [("", REPO)]:
        out = root / ("reports-before" if label else "reports")
        env_v = {**env, "PYTHONPATH": str(code), "EVAL_REPORTS": str(out)}
        doit = [sys.executable, "-m", "doit", "-f", str(code / "dodo.py")]
        first = "first" if not (out / "scale" / "site").is_dir() else "first, reused site"
        figures[f"doit report ({first}){label}"] = run([*doit, "report:scale"], env_v, root,
                                                        "report of task set")
        again = figures[f"doit report (again){label}"] = run([*doit, "report:scale"], env_v,
                                                              root, "report of task set")
        again.note = f"site and report: {sum(1 for _ in out.rglob('*') if _.is_file())} files"
        figures.update(api(project, env_v, list(project.plan.agents), label))
    figures["Store.reindex()"] = run([sys.executable, "-c", (
        "import sys; from evaluator.store import Store; "
        "print(Store(sys.argv[1], remote=None).reindex())"), str(root / "store")], env, root)
    return figures


def smoke_template(dest: Path) -> tuple[Path, ...]:
    """A template made by a real run (Docker engine, simulated model): the demo cut to its first
    task, `doit gold` then `doit eval` into a store of its own; its roots for `read_template`."""
    env = demo_copy(dest, exploits=False, tasks=1, fixtures=False, gold_reps=1, samples=1,
                    agents=["reference-strong"])
    env = {**os.environ, **env, "EVAL_STORE": str(dest / "store"),
           "EVAL_REPORTS": str(dest / "reports"), "PYTHONPATH": str(REPO)}
    for target in (f"gold:{SET}", f"eval:{SET}"):
        run([*DOIT, target], env, REPO)
    return dest / "tasks", dest / "lock", dest / "store", dest / "evals", REPO / "agents"


def table(sizes: list[int], results: dict[int, dict[str, Figure]]) -> str:
    names = list(dict.fromkeys(k for r in results.values() for k in r))
    head = f"{'command':32}" + "".join(f"{f'{n:,} wall/cpu/rss':>28}" for n in sizes)
    if len(sizes) > 1:
        head += "  growth (x cpu or wall per x attempts)"
    lines = [head]
    for name in names:
        row = f"{name:32}"
        for n in sizes:
            f = results[n].get(name)
            row += f"{'-':>28}" if f is None else f"{_fmt(f):>28}"
        if len(sizes) > 1:
            growth = []
            for a, b in zip(sizes, sizes[1:], strict=False):
                fa, fb = results[a].get(name), results[b].get(name)
                if fa and fb:
                    x = (fb.cpu / fa.cpu) if fa.cpu == fa.cpu and fa.cpu > 0 else fb.wall / fa.wall
                    growth.append(f"{x:.1f}x/{b / a:.0f}x")
            row += "  " + ", ".join(growth)
        lines.append(row)
    for n in sizes:
        for name, f in results[n].items():
            if f.note:
                lines.append(f"  {n:,}: {name}: {f.note}")
    return "\n".join(lines)


def _fmt(f: Figure) -> str:
    cpu = "" if f.cpu != f.cpu else f" {f.cpu:.2f}c"
    rss = "" if f.rss_mb != f.rss_mb else f" {f.rss_mb:.0f}MB"
    return f"{f.wall:.2f}s{cpu}{rss}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--run", type=int, default=4,
                    help="attempts each size's real `doit eval` runs (0: none, no Docker needed)")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (100 and 300 attempts)")
    ap.add_argument("--template", type=Path, default=None,
                    help="a project folder (tasks/, lock/, store/, evals/, agents/) after an "
                         "eval; default: this checkout after `make demo`")
    ap.add_argument("--set", default=None, help="the template's task set (default demo, or "
                                                "the only set of --template)")
    ap.add_argument("--keep", type=Path, default=None, help="build under this folder, keep it")
    ap.add_argument("--reuse", action="store_true", help="with --keep: a size whose project "
                    "a run before landed whole is not made again (no plan or eval figures)")
    ap.add_argument("--before", type=Path, default=None,
                    help="a checkout of the code before a change (`git worktree add DIR "
                         "main`): the report and the API run with it too, side by side")
    args = ap.parse_args()
    sizes = [100, 300] if args.smoke else sorted(args.sizes)
    to_run = min(args.run, 1) if args.smoke else args.run
    results: dict[int, dict[str, Figure]] = {}
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        if args.template is None and args.smoke:  # CI has no `make demo` store: make one
            roots, name = smoke_template(base / "template"), SET
        elif args.template is None:
            roots = (REPO / "tasks", REPO / "lock", REPO / ".eval", REPO / "evals", REPO / "agents")
            name = args.set or SET
        else:
            p = args.template
            roots = (p / "tasks", p / "lock", p / "store", p / "evals", p / "agents")
            name = args.set or next(x.parent.name for x in (p / "tasks").glob("*/set.yaml"))
        template = read_template(name, *roots)
        print(f"template: {len(template.runs)} graded attempts of task {template.task_id!r} "
              f"({name}); shape: {AGENTS} agents x {SAMPLES} samples x N/{AGENTS * SAMPLES} tasks")
        for n in sizes:
            print(f"size {n:,}:", flush=True)
            root = base / f"n{n}"
            if not args.reuse:
                shutil.rmtree(root, ignore_errors=True)
            results[n] = one_size(template, root, n, to_run, args.before)
            print(table([n], {n: results[n]}), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    print()
    print(table(sizes, results))


if __name__ == "__main__":
    main()
