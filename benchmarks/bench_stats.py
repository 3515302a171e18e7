"""Time paired_comparison on a large comparison: 2,000 tasks x 5 samples x 10,000 resamples.

Run as `.venv/bin/python benchmarks/bench_stats.py`; prints the best of a few runs in seconds
and its ratio to the half-second goal (below 1.0 meets it), for one comparison and for a
report's family of five decided together (Holm). A last line times the slower resampling path,
taken when task scores are nearly all distinct (ragged sample counts).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

GOAL_S = 0.5
N_TASKS, N_SAMPLES, N_BOOT, REPEATS = 2_000, 5, 10_000, 5


def _outcomes(seed: int, shift: float, samples: list[int]) -> dict[str, list[int]]:
    rng = np.random.default_rng(seed)
    difficulty = np.random.default_rng(0).normal(0.0, 1.5, N_TASKS)
    p = 1 / (1 + np.exp(-(difficulty + shift)))
    solved = (rng.random((N_TASKS, max(samples))) < p[:, None]).astype(int).tolist()
    return {
        f"task-{i:04d}": row[:s] for i, (row, s) in enumerate(zip(solved, samples, strict=True))
    }


def _best_time(a: dict[str, list[int]], b: dict[str, list[int]], family: int = 1) -> float:
    from evaluator.stats import paired_comparisons

    times = []
    for i in range(REPEATS):
        pairs = [(a, b, f"bench-{i}-{j}") for j in range(family)]
        start = time.perf_counter()
        paired_comparisons(pairs, n_boot=N_BOOT)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    # Run from a checkout without installing: the repository root holds the package.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    uniform = [N_SAMPLES] * N_TASKS
    a, b = _outcomes(1, 0.0, uniform), _outcomes(2, 0.2, uniform)
    best = _best_time(a, b)
    print(
        f"paired_comparison {N_TASKS} tasks x {N_SAMPLES} samples x {N_BOOT} resamples: "
        f"best of {REPEATS} {best:.4f} s, {best / GOAL_S:.3f} x the {GOAL_S:g} s goal"
    )
    family = _best_time(a, b, family=5)
    print(f"  a family of 5 such comparisons with Holm: {family:.4f} s, {family / 5:.4f} s each")
    ragged = [5 + i % 23 for i in range(N_TASKS)]  # 5..27 samples: hundreds of distinct scores
    worst = _best_time(_outcomes(1, 0.0, ragged), _outcomes(2, 0.2, ragged[::-1]))
    print(
        f"  ragged 5-27 samples per task (index-gather path): {worst:.4f} s, "
        f"{worst / GOAL_S:.3f} x the goal"
    )


if __name__ == "__main__":
    main()
