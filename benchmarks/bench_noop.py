"""How much does a no-op `doit gold:<set>` cost per target when everything is already done?

Builds a synthetic task set whose gold gate has N grade targets, pins it with a fake resolver
(no Docker needed: the gate only reads pins), writes every grade and verdict record into a
fresh store, then times `doit gold:<set>` end to end. A small set is timed the same way in the
same run, so the fixed start-up cost cancels: per-target cost = (T_big - T_small) / (N_big -
N_small). Goal: at most 100 microseconds per target.

    .venv/bin/python benchmarks/bench_noop.py [--targets 10000]
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

from evaluator.gold import plan_gold, write_verdict  # noqa: E402
from evaluator.hashing import hash_json  # noqa: E402
from evaluator.lock import resolve_lock  # noqa: E402
from evaluator.store import Store  # noqa: E402
from evaluator.taskset import load_task_set  # noqa: E402

REPS = 5


class FakeResolver:
    def image(self, ref: str) -> str:
        return "sha256:" + hash_json(ref)

    def commit(self, image: str, workdir: str, ref: str) -> str:
        return hash_json([image, ref])[:40]


def build(root: Path, name: str, n_tasks: int) -> None:
    set_dir = root / "tasks" / name
    set_dir.mkdir(parents=True)
    (set_dir / "set.yaml").write_text(yaml.safe_dump({"name": name, "gold_reps": REPS}))
    for i in range(n_tasks):
        d = set_dir / f"t{i:05d}"
        (d / "hidden" / "tests").mkdir(parents=True)
        (d / "hidden" / "tests" / "test_h.py").write_text(f"def test_{i}():\n    assert True\n")
        (d / "problem.md").write_text(f"bug {i}\n")
        (d / "gold.patch").write_text(f"diff {i}\n")
        (d / "task.yaml").write_text(yaml.safe_dump({
            "id": d.name, "image": f"bench/{d.name}:1", "problem_statement": "problem.md",
            "hidden_tests": "hidden", "gold_patch": "gold.patch",
            "test_command": "pytest --junitxml={junit_xml}",
            "fail_to_pass": ["tests/test_h.py::t"]}))
    ts = load_task_set(name, root / "tasks")
    lock = resolve_lock(ts, FakeResolver())
    (root / "lock").mkdir(exist_ok=True)
    (root / "lock" / f"{name}.lock").write_bytes(lock.to_json())
    store = Store(root / "store")
    for plan in plan_gold(ts, lock):
        for keys, resolved in ((plan.gold_keys, True), (plan.empty_keys, False)):
            for key in keys:
                store.put("grade", key, {"resolved": resolved, "tests": {}, "outcome": "x",
                                         "task_id": plan.task.id, "task_set": name})
        write_verdict(store, ts, lock, plan)


def time_noop(root: Path, name: str, runs: int) -> float:
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / "store"), "PYTHONPATH": str(REPO)}
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"),
                              f"gold:{name}"], env=env, capture_output=True, text=True)
        best = min(best, time.perf_counter() - t0)
        if out.returncode != 0 or "\n.  grade:" in out.stdout:
            raise SystemExit(f"not a no-op run:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=10_000, help="grade targets in the big set")
    ap.add_argument("--runs", type=int, default=3, help="timed runs each (best is kept)")
    args = ap.parse_args()
    small_tasks, big_tasks = 10, args.targets // (2 * REPS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        build(root, "small", small_tasks)
        build(root, "big", big_tasks)
        print(f"built {big_tasks} tasks / {big_tasks * 2 * REPS} grade records in "
              f"{time.perf_counter() - t0:.1f}s")
        t_small = time_noop(root, "small", args.runs)
        t_big = time_noop(root, "big", args.runs)
    n_small, n_big = small_tasks * (2 * REPS + 1), big_tasks * (2 * REPS + 1)
    per_target = (t_big - t_small) / (n_big - n_small) * 1e6
    print(f"no-op doit gold: {n_small} targets {t_small:.3f}s, {n_big} targets {t_big:.3f}s")
    print(f"per target (difference): {per_target:.1f} us; goal 100 us; ratio {per_target / 100:.2f}")
    print(f"per target (whole run, start-up included): {t_big / n_big * 1e6:.1f} us")


if __name__ == "__main__":
    main()
