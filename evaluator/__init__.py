"""A hermetic, cache-keyed evaluation pipeline for coding agents.

One subpackage per stage: `taskset` (tasks as data), `lock` (pins), `store` (blobs, records,
index), `sandbox` and `images` (Docker), `grading`, `gold` (the validity gate), `agents`,
`model`, `simulated`, `attempts`, `policy` (cheat detection), `stats`, and `pipeline` (doit).
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
