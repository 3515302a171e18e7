"""Agreement with the official SWE-bench harness (swebench 5.x, in a virtualenv of its own),
and the round trip through SWE-bench's formats.

Exports a set's instances and each agent's predictions in SWE-bench format, then grades the same
predictions twice: with ours (`python -m evaluator predictions grade`, in a fresh store that
holds only the gold gate's verdicts, so nothing is reused) and with the official harness
(`python -m swebench.harness.run_evaluation`), and prints both resolved sets, whether they are
identical, and the wall time of each side by side. The round trip: the exported instances are
imported again as `<set>-rt`, locked and gated (same verdicts per instance?), and each agent's
exported predictions graded there (same resolved ids as the agent's own results?). Everything
is written under a work folder (a copy of the set, its lock and stores), never in the checkout.

    python benchmarks/bench_swebench_agreement.py                  # demo: lock, gold, eval first
    python benchmarks/bench_swebench_agreement.py --store .eval --skip-run --agents reference-strong

The official harness creates its containers on Docker's default network; on an engine without
a bridge (`dockerd --iptables=false --bridge=none`) `--no-bridge` (the default here) runs it with
`network_mode="none"` added to each container it creates, which changes nothing it grades.
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
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ("valid", "flaky", "broken-gold", "passes-without-fix", "incomplete")
VENV = Path(os.environ.get("SWEBENCH_VENV", "/tmp/swebench-venv"))
PY = sys.executable
# Runs the official entry point with network_mode="none" on every container it creates.
NO_BRIDGE = ("import runpy, docker.models.containers as c; o = c.ContainerCollection.create; "
             "c.ContainerCollection.create = lambda s, *a, **k: o(s, *a, **{'network_mode': "
             "'none', **k}); runpy.run_module('swebench.harness.run_evaluation', "
             "run_name='__main__')")


def run(cmd: list[str], env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, env=env, cwd=cwd, text=True, capture_output=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[:6])} failed ({out.returncode}):\n{out.stdout[-3000:]}"
                 f"\n{out.stderr[-3000:]}")
    return out


def ensure_official() -> Path:
    py = VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([PY, "-m", "venv", str(VENV)], check=True)
    if subprocess.run([str(py), "-c", "import swebench"], capture_output=True).returncode:
        subprocess.run([str(py), "-m", "pip", "install", "-q", "swebench==5.0.2"], check=True)
    return py


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="demo")
    ap.add_argument("--store", type=Path, help="store with the set's gold gate and eval "
                    "(default: a fresh one, filled by lock, gold and eval first)")
    ap.add_argument("--skip-run", action="store_true", help="the store already holds them")
    ap.add_argument("--agents", nargs="*", help="default: every agent of evals/<set>.yaml")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--bridge", action="store_true", help="let the official harness use "
                    "Docker's default network")
    a = ap.parse_args()
    official = ensure_official()
    work = a.out or Path(tempfile.mkdtemp(prefix="swebench-agree-"))
    store = a.store or work / "store"
    tasks = work / "tasks"
    if not (tasks / a.set).is_dir():
        shutil.copytree(Path(os.environ.get("EVAL_TASKS", ROOT / "tasks")) / a.set, tasks / a.set)
    env = {**os.environ, "EVAL_STORE": str(store), "PYTHONPATH": str(ROOT),
           "EVAL_TASKS": str(tasks), "EVAL_LOCK_DIR": str(work / "lock")}
    doit = [PY, "-m", "doit", "-f", str(ROOT / "dodo.py")]
    if a.skip_run:
        run([*doit, f"lock:{a.set}"], env)
    else:
        for target in ("lock", "gold", "eval"):
            run([*doit, "-n", "4", "-P", "process", f"{target}:{a.set}"], env)
    agents = a.agents or yaml.safe_load((ROOT / "evals" / f"{a.set}.yaml").read_text())["agents"]
    rows = []
    for agent in agents:
        out = work / agent
        run([PY, "-m", "evaluator", "export", "swebench", "--set", a.set, "--agent", agent,
             "--out", str(out)], env)
        ours, t_ours = ours_side(a.set, store, out, agent, env)
        theirs, t_theirs = official_side(official, out, agent, a.workers, a.bridge)
        rows.append((agent, ours, theirs, t_ours, t_theirs))
    print(f"{'agent':22} {'ours':>5} {'official':>8} {'identical':>9} {'ours s':>8} "
          f"{'official s':>10} {'ratio':>6}")
    for agent, ours, theirs, t_ours, t_theirs in rows:
        print(f"{agent:22} {len(ours):5} {len(theirs):8} {str(ours == theirs):>9} "
              f"{t_ours:8.1f} {t_theirs:10.1f} {t_theirs / t_ours:6.2f}")
        for iid in sorted(ours ^ theirs):
            print(f"  differs: {iid}: ours {'resolved' if iid in ours else 'unresolved'}, "
                  f"official {'resolved' if iid in theirs else 'unresolved'}")
    roundtrip(a.set, work, agents, env, doit)
    print(f"files under {work}")


def roundtrip(name: str, work: Path, agents: list[str], env: dict[str, str], doit: list[str]
              ) -> None:
    rt = f"{name}-rt"
    t0 = time.monotonic()
    run([PY, "-m", "evaluator", "import", "swebench", str(work / agents[0] / "instances.jsonl"),
         "--set", rt], env)
    run([*doit, f"lock:{rt}"], env)
    verdicts = {}
    for which in (name, rt):
        text = run([*doit, "-n", "4", "-P", "process", f"gold:{which}"], env).stdout
        verdicts[which] = {ln.split()[0]: ln.split()[1] for ln in text.splitlines()
                           if len(ln.split()) > 1 and ln.split()[1] in VERDICTS}
    same = verdicts[name] == verdicts[rt]
    print(f"round trip: {len(verdicts[rt])} task(s) imported back as {rt!r}; same verdicts: "
          f"{same}")
    if not same:
        for tid in sorted(set(verdicts[name]) | set(verdicts[rt])):
            if verdicts[name].get(tid) != verdicts[rt].get(tid):
                print(f"  {tid}: {verdicts[name].get(tid)} -> {verdicts[rt].get(tid)}")
    for agent in agents:
        out = work / agent
        run([PY, "-m", "evaluator", "predictions", "grade", str(out / "predictions.jsonl"),
             "--set", rt], env)
        run([PY, "-m", "evaluator", "export", "swebench", "--set", rt, "--agent", agent,
             "--out", str(out / "rt"), "--no-instances"], env)
        before = set(json.loads((out / "summary.json").read_text())["resolved_ids"])
        after = set(json.loads((out / "rt" / "summary.json").read_text())["resolved_ids"])
        print(f"round trip {agent}: {len(before)} resolved, {len(after)} after; same ids: "
              f"{before == after}" + (f" (differ: {sorted(before ^ after)})" if before != after
                                      else ""))
    print(f"round trip took {time.monotonic() - t0:.1f} s")


def ours_side(name: str, store: Path, out: Path, agent: str, env: dict[str, str]
              ) -> tuple[set[str], float]:
    """Grade the exported predictions in a store holding only the gate's verdicts."""
    fresh = out / "ours-store"
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(store / "records" / "verdict", fresh / "records" / "verdict")
    env2 = {**env, "EVAL_STORE": str(fresh)}
    t0 = time.monotonic()
    run([PY, "-m", "evaluator", "predictions", "grade", str(out / "predictions.jsonl"),
         "--set", name], env2)
    took = time.monotonic() - t0
    run([PY, "-m", "evaluator", "export", "swebench", "--set", name, "--agent", agent, "--out",
         str(out / "ours"), "--no-instances"], env2)
    return set(json.loads((out / "ours" / "summary.json").read_text())["resolved_ids"]), took


def official_side(py: Path, out: Path, agent: str, workers: int, bridge: bool
                  ) -> tuple[set[str], float]:
    where = out / "official"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    args = ["-d", str(out / "instances.jsonl"), "-p", str(out / "predictions.jsonl"),
            "--run_id", "agree", "--max_workers", str(workers), "--report_dir", str(where)]
    cmd = [str(py), "-m", "swebench.harness.run_evaluation", *args] if bridge else [
        str(py), "-c", NO_BRIDGE, *args]
    t0 = time.monotonic()
    done = subprocess.run(cmd, cwd=where, text=True, capture_output=True)
    took = time.monotonic() - t0
    reports = list(where.glob("*.agree.json"))
    if not reports:
        sys.exit(f"the official harness wrote no report:\n{done.stdout[-3000:]}\n"
                 f"{done.stderr[-3000:]}")
    return set(json.loads(reports[0].read_text())["resolved_ids"]), took


if __name__ == "__main__":
    main()
