"""How much does a no-op `doit gold:<set>` cost per target when everything is already done?

Builds a synthetic task set whose gold gate has N grade targets, pins it with a fake resolver
(no Docker needed: the gate only reads pins), writes every grade, exploit and verdict record
into a fresh store (typed records, as the gate writes them, so every verdict is decided), then
times `doit gold:<set>` end to end. A small set is timed the same way in the same run, so the
fixed start-up cost cancels: per-target cost = (T_big - T_small) / (N_big - N_small), where a
task's targets are its grades, its bundled exploits and its verdict. Goal: at most 100
microseconds per target.

    .venv/bin/python benchmarks/bench_noop.py [--targets 10000] [--runs 3]
    .venv/bin/python benchmarks/bench_noop.py --smoke   # 2 and 6 tasks, one run each

Exits non-zero when a timed run was not a no-op (a target ran) or a verdict was not decided.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluator.gold import (  # noqa: E402
    BY_POLICY,
    CAUGHT,
    VALID,
    ExploitRecord,
    plan_gold,
    verdicts,
    write_verdict,
)
from evaluator.grading import RESOLVED, UNRESOLVED, GradeOutcome, GradeRecord  # noqa: E402
from evaluator.lock import resolve_lock  # noqa: E402
from evaluator.store import Store  # noqa: E402
from evaluator.taskset import load_task_set  # noqa: E402
from tests.lock.support import FakeResolver  # noqa: E402

REPS = 5
F2P = "tests/test_h.py::test_fixed"


def build(root: Path, name: str, n_tasks: int) -> int:
    """The set `name` of `n_tasks` tasks, locked and gated in a store under `root`: its number
    of gold-gate targets (grades, exploits and verdicts)."""
    set_dir = root / "tasks" / name
    set_dir.mkdir(parents=True)
    (set_dir / "set.yaml").write_text(yaml.safe_dump({"name": name, "gold_reps": REPS}))
    for i in range(n_tasks):
        d = set_dir / f"t{i:05d}"
        (d / "hidden" / "tests").mkdir(parents=True)
        (d / "hidden" / "tests" / "test_h.py").write_text(f"def test_fixed():\n    assert {i}\n")
        (d / "problem.md").write_text(f"bug {i}\n")
        (d / "gold.patch").write_text(
            f"diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n"
            f"-x = {i} - 1\n+x = {i} + 1\n")
        (d / "task.yaml").write_text(yaml.safe_dump({
            "id": d.name, "image": f"bench/{d.name}:1", "problem_statement": "problem.md",
            "hidden_tests": "hidden", "gold_patch": "gold.patch",
            "test_command": "pytest --junitxml={junit_xml}", "fail_to_pass": [F2P]}))
    ts = load_task_set(name, root / "tasks")
    lock = resolve_lock(ts, FakeResolver())
    (root / "lock").mkdir(exist_ok=True)
    (root / "lock" / f"{name}.lock").write_bytes(lock.to_json())
    store = Store(root / "store")
    targets = 0
    for plan in plan_gold(ts, lock):
        patch = store.put_blob(plan.task.gold_patch)
        for subject, keys, outcome in (("gold", plan.gold_keys, RESOLVED),
                                       ("empty", plan.empty_keys, UNRESOLVED)):
            graded = GradeOutcome(outcome, tests={F2P: "passed" if outcome == RESOLVED else "failed"})
            for rep, key in enumerate(keys):
                store.write(key, GradeRecord.of(graded, plan.spec, patch=patch, rep=rep,
                                                subject=subject, lock_version=lock.version,
                                                output="", started=time.time()))
        for family, key in plan.exploit_keys:
            store.write(key, ExploitRecord(task_set=name, task_id=plan.task.id, family=family,
                                           means="synthetic", status=CAUGHT,
                                           caught_by=BY_POLICY, why="bench_noop"))
        write_verdict(store, ts, lock, plan)
        targets += len(plan.gold_keys) + len(plan.empty_keys) + len(plan.exploit_keys) + 1
    undecided = {t: v.verdict for t, v in verdicts(store, ts, lock).items() if v.verdict != VALID}
    if undecided:
        raise SystemExit(f"the synthetic set {name!r} is not gated: {len(undecided)} task(s) "
                         f"not valid, e.g. {sorted(undecided.items())[:3]}")
    return targets


def time_noop(root: Path, name: str, runs: int) -> float:
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / "store"), "PYTHONPATH": str(REPO)}
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"),
                              f"gold:{name}"], env=env, capture_output=True, text=True)
        best = min(best, time.perf_counter() - t0)
        ran = [ln for ln in out.stdout.splitlines()
               if ln.startswith((".  grade:", ".  exploit:", ".  verdict:"))]
        if out.returncode != 0 or ran:
            raise SystemExit(f"not a no-op run of gold:{name} (exit {out.returncode}, "
                             f"{len(ran)} target(s) ran):\n{out.stdout[-2000:]}\n"
                             f"{out.stderr[-2000:]}")
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=10_000, help="grade targets in the big set")
    ap.add_argument("--runs", type=int, default=3, help="timed runs each (best is kept)")
    ap.add_argument("--smoke", action="store_true",
                    help="a tiny size (2 and 6 tasks, one run each): does it still run?")
    args = ap.parse_args()
    targets, runs = (60, 1) if args.smoke else (args.targets, args.runs)
    small_tasks, big_tasks = 2 if args.smoke else 10, targets // (2 * REPS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        n_small = build(root, "small", small_tasks)
        n_big = build(root, "big", big_tasks)
        print(f"built {big_tasks} tasks / {big_tasks * 2 * REPS} grade records, {n_big} "
              f"targets in all, in {time.perf_counter() - t0:.1f}s")
        t_small = time_noop(root, "small", runs)
        t_big = time_noop(root, "big", runs)
    per_target = (t_big - t_small) / (n_big - n_small) * 1e6
    print(f"no-op doit gold: {n_small} targets {t_small:.3f}s, {n_big} targets {t_big:.3f}s")
    print(f"per target (difference): {per_target:.1f} us; goal 100 us; ratio {per_target / 100:.2f}")
    print(f"per target (whole run, start-up included): {t_big / n_big * 1e6:.1f} us")


if __name__ == "__main__":
    main()
