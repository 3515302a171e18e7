"""Harness versions: a hash of exactly the code and dependencies that can change a target's outcome.

A grade's key holds the grader version (grading and sandbox code plus the dependency lock), so two
machines that agree on a key ran the same grader, and editing report code never invalidates a grade.
"""

from __future__ import annotations

import functools
from pathlib import Path

from evaluator.hashing import hash_file, hash_json

_PACKAGE = Path(__file__).resolve().parent
_ROOT = _PACKAGE.parent

# Which parts of the harness each kind of target depends on.
_COMPONENTS: dict[str, tuple[str, ...]] = {
    # The seal decides what the repository shows agents and graded patches alike.
    "grader": ("grading", "sandbox", "images/_seal.py", "images/_seal_script.py", "hashing.py",
               "version.py"),
    "attempt": ("agents", "model", "sandbox", "images/_seal.py", "images/_seal_script.py",
                "attempts", "hashing.py", "version.py"),
    # What decides a result from its grade: the policy's checks and the one rule. In the result
    # key only: a change decides again from the stored grades, it never re-runs an agent.
    "result": ("result", "policy", "hashing.py", "version.py"),
    # The gold gate's bundled exploits: the patches they build for a task.
    "exploits": ("gold/_exploits.py", "gold/_payloads.py", "gold/_target.py", "hashing.py",
                 "version.py"),
    # The simulated model's behaviour: in the key of simulated agents' attempts only.
    "simulated": ("simulated", "hashing.py", "version.py"),
}


@functools.cache
def harness_version(component: str) -> str:
    """Hex blake3 of the source files of `component` and of `requirements.lock`."""
    try:
        parts = _COMPONENTS[component]
    except KeyError:
        known = sorted(_COMPONENTS)
        raise ValueError(f"unknown harness component {component!r}; use one of {known}") from None
    files: list[Path] = []
    for part in parts:
        path = _PACKAGE / part
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else [])
    lock = _ROOT / "requirements.lock"
    entries: list[list[str | None]] = [[f.relative_to(_ROOT).as_posix(), hash_file(f)] for f in files]
    entries.append(["requirements.lock", hash_file(lock) if lock.exists() else None])
    return hash_json([component, entries])[:32]


__all__ = ["harness_version"]
