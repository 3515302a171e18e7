"""Time paired_comparison on a large comparison: 2,000 tasks x 5 samples x 10,000 resamples.

Run as `.venv/bin/python benchmarks/bench_stats.py`; prints the best of a few runs in seconds
and its ratio to the half-second goal (below 1.0 meets it), for one comparison and for a
report's family of five decided together (Holm). A last line times the slower resampling path,
taken when task scores are nearly all distinct (ragged sample counts).

`--smoke`: 100 tasks x 200 resamples, one run of each: the same code paths in a few seconds,
exiting non-zero when one breaks (no figure from it means anything).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

GOAL_S = 0.5


@dataclass(frozen=True)
class Size:
    tasks: int = 2_000
    samples: int = 5
    boot: int = 10_000
    repeats: int = 5


SMOKE = Size(tasks=100, boot=200, repeats=1)


def _outcomes(size: Size, seed: int, shift: float, samples: list[int]) -> dict[str, list[int]]:
    rng = np.random.default_rng(seed)
    difficulty = np.random.default_rng(0).normal(0.0, 1.5, size.tasks)
    p = 1 / (1 + np.exp(-(difficulty + shift)))
    solved = (rng.random((size.tasks, max(samples))) < p[:, None]).astype(int).tolist()
    return {
        f"task-{i:04d}": row[:s] for i, (row, s) in enumerate(zip(solved, samples, strict=True))
    }


def _best_time(size: Size, a: dict[str, list[int]], b: dict[str, list[int]],
               family: int = 1) -> float:
    from evaluator.stats import paired_comparisons

    times = []
    for i in range(size.repeats):
        pairs = [(a, b, f"bench-{i}-{j}") for j in range(family)]
        start = time.perf_counter()
        results = paired_comparisons(pairs, n_boot=size.boot)
        times.append(time.perf_counter() - start)
        if len(results) != family:
            raise SystemExit(f"paired_comparisons gave {len(results)} result(s) for {family}")
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true",
                    help=f"{SMOKE.tasks} tasks x {SMOKE.boot} resamples, once: does it still run?")
    size = SMOKE if ap.parse_args().smoke else Size()
    # Run from a checkout without installing: the repository root holds the package.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    uniform = [size.samples] * size.tasks
    a, b = _outcomes(size, 1, 0.0, uniform), _outcomes(size, 2, 0.2, uniform)
    best = _best_time(size, a, b)
    print(
        f"paired_comparison {size.tasks} tasks x {size.samples} samples x {size.boot} resamples: "
        f"best of {size.repeats} {best:.4f} s, {best / GOAL_S:.3f} x the {GOAL_S:g} s goal"
    )
    family = _best_time(size, a, b, family=5)
    print(f"  a family of 5 such comparisons with Holm: {family:.4f} s, {family / 5:.4f} s each")
    ragged = [5 + i % 23 for i in range(size.tasks)]  # 5..27 samples: hundreds of distinct scores
    worst = _best_time(size, _outcomes(size, 1, 0.0, ragged), _outcomes(size, 2, 0.2, ragged[::-1]))
    print(
        f"  ragged 5-27 samples per task (index-gather path): {worst:.4f} s, "
        f"{worst / GOAL_S:.3f} x the goal"
    )


if __name__ == "__main__":
    main()
