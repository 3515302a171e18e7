"""Where an attempt's code came from: the git commits of the harness and of the agent's files, and
whether their checkouts had changes. Untracked files count as changes: an agent helper that was
never committed changes what ran as much as an edited one. Unknown is None, never False."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluator.agents import Agent
from evaluator.version import harness_version

_HARNESS_ROOT = Path(__file__).resolve().parents[2]
_LISTED = 20  # changed paths named in a record; the rest are counted


def _git(cwd: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def checkout_state(paths: Sequence[Path]) -> dict[str, Any]:
    """Commit and changes of the checkout holding `paths[0]`, limited to `paths` inside it."""
    first = paths[0] if paths[0].is_dir() else paths[0].parent
    top = _git(first, "rev-parse", "--show-toplevel")
    if top is None:
        return {"git_commit": None, "git_dirty": None, "changed": []}
    inside = [str(p) for p in paths if p.resolve().is_relative_to(Path(top).resolve())]
    status = _git(Path(top), "status", "--porcelain", "--untracked-files=all", "--", *inside)
    if status is None:
        return {"git_commit": _git(Path(top), "rev-parse", "HEAD"), "git_dirty": None,
                "changed": []}
    changed = [line[3:] for line in status.splitlines() if line.strip()]
    return {"git_commit": _git(Path(top), "rev-parse", "HEAD"), "git_dirty": bool(changed),
            "changed": changed[:_LISTED], "changed_count": len(changed)}


@functools.cache
def _harness_state() -> dict[str, Any]:
    return checkout_state([_HARNESS_ROOT])


_agent_states: dict[tuple[str, str], dict[str, Any]] = {}


def provenance(agent: Agent | None = None) -> dict[str, Any]:
    """The harness's commit and changes (untracked files included), and the agent's."""
    harness = _harness_state()
    out: dict[str, Any] = {"git_commit": harness["git_commit"], "git_dirty": harness["git_dirty"],
                           "harness_version": harness_version("attempt")}
    if agent is not None:
        key = (agent.identity, str(agent.dir))
        if key not in _agent_states:
            _agent_states[key] = checkout_state([agent.dir, *agent.code.paths])
        out["agent"] = _agent_states[key]
    return out


__all__ = ["checkout_state", "provenance"]
