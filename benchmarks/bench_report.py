"""Time a report over a synthetic store: 3 agents x 200 tasks x 3 samples (1,800 attempts).

Run as `.venv/bin/python benchmarks/bench_report.py`; builds the store in a temporary folder
(half a minute: every record is a file plus an index row), then prints the best of a few runs
of `report_summary` (load, check every record against the lock, leaderboard, comparisons) and
of rendering the files, with the ratio of the total to the goal (below 1.0 meets it).

`--smoke`: 4 tasks, one run: the same code paths in seconds, exiting non-zero when one breaks.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 5.0
AGENTS, N_TASKS, SAMPLES, REPEATS = ("base", "cand", "third"), 200, 3, 3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="4 tasks, once: does it still run?")
    smoke = ap.parse_args().smoke
    n_tasks, repeats = (4, 1) if smoke else (N_TASKS, REPEATS)
    # Run from a checkout without installing: the repository root holds the package and tests.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from evaluator.reports import report_summary
    from evaluator.reports._render import render
    from tests.reports._world import World

    with tempfile.TemporaryDirectory() as tmp:
        tasks = tuple(f"task-{i:04d}" for i in range(n_tasks))
        start = time.perf_counter()
        world = World(Path(tmp), tasks, samples=SAMPLES, agents=AGENTS,
                      verdicts={t: "flaky" for t in tasks[::25]})
        rng = random.Random(0)
        for skill, agent in zip((0.3, 0.5, 0.6), AGENTS, strict=True):
            weights = (skill, 1 - skill, 0.02)  # resolved, failed, infra error
            world.outcomes(agent, {t: "".join(rng.choices("RFE", weights, k=SAMPLES))
                                   for t in tasks if t not in tasks[::25]})
        print(f"built {len(world.plan().attempts)} attempts in {time.perf_counter() - start:.1f} s")
        summary_s, render_s = [], []
        for i in range(repeats):
            t0 = time.perf_counter()
            summary = report_summary("mini", **world.kwargs)
            t1 = time.perf_counter()
            render(summary, Path(tmp) / f"out-{i}")
            if not any((Path(tmp) / f"out-{i}").iterdir()):
                raise SystemExit(f"the report rendered nothing under {Path(tmp) / f'out-{i}'}")
            summary_s.append(t1 - t0)
            render_s.append(time.perf_counter() - t1)
    best = min(summary_s) + min(render_s)
    print(f"report {len(AGENTS)} agents x {n_tasks} tasks x {SAMPLES} samples: summary "
          f"{min(summary_s):.2f} s + render {min(render_s):.2f} s (best of {repeats}), "
          f"{best / GOAL_S:.3f} x the {GOAL_S:.0f} s goal")


if __name__ == "__main__":
    main()
