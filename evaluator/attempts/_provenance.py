"""Where an attempt's code came from: the git commits of the harness and of the agent's code, and
whether their checkouts had changes. Untracked files count as changes: an agent helper that was
never committed changes what ran as much as an edited one. Unknown is None, never False.

An agent's code can live in several places: its folder (config, prompts, glue) and the top
package of each of its own modules (`code_roots`), in one checkout, several, or none. Each root
is recorded in its own checkout (commit, and changes among the files of that root the agent
uses), or, outside any checkout, by the hash of those files' contents.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluator.agents import Agent
from evaluator.attempts._isolation import code_roots
from evaluator.attempts._key import harness_environment
from evaluator.hashing import hash_json
from evaluator.version import contract_versions, source_hash

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


def code_state(agent: Agent) -> dict[str, Any]:
    """The agent's code state, root by root (`roots`); at the top, the commit of its folder's
    checkout and whether any root had changes (None when some root is in no checkout)."""
    folder = agent.dir.resolve()
    roots = [_root_state("folder", folder, [folder],  # every file of it is in the identity
                         hash_json(agent.files | {"agent.yaml": agent.spec.model_dump()}))]
    for root in code_roots(agent):
        if root.resolve().is_relative_to(folder):
            continue  # the folder's own glue: recorded with it
        used = {name: digest for name, digest in agent.code.modules.items()
                if agent.code.files[name].resolve().is_relative_to(root.resolve())}
        files = [agent.code.files[name] for name in sorted(used)]
        roots.append(_root_state("code", root.resolve(), files, hash_json(used)))  # used only
    dirty = [r["git_dirty"] for r in roots]
    return {"git_commit": roots[0]["git_commit"],
            "git_dirty": True if True in dirty else None if None in dirty else False,
            "changed": roots[0]["changed"], "changed_count": roots[0].get("changed_count", 0),
            "roots": roots}


def _root_state(kind: str, root: Path, files: Sequence[Path], content: str) -> dict[str, Any]:
    """`files` are what counts of the root: its changes are changes among them."""
    state = checkout_state(files)
    out: dict[str, Any] = {"root": str(root), "kind": kind, **state}
    if state["git_commit"] is None:
        out["content"] = content  # outside any checkout: what it held, by its files' hashes
    return out


@functools.cache
def _harness_state() -> dict[str, Any]:
    return checkout_state([_HARNESS_ROOT])


_agent_states: dict[tuple[str, str], dict[str, Any]] = {}


def provenance(agent: Agent | None = None) -> dict[str, Any]:
    """The harness's commit and changes (untracked files included), its exact build (`source`,
    a hash of its files: provenance, in no key) and the contract versions the attempt's key
    holds; and the agent's code state."""
    harness = _harness_state()
    out: dict[str, Any] = {"git_commit": harness["git_commit"], "git_dirty": harness["git_dirty"],
                           "harness_source": source_hash(),
                           "contracts": contract_versions("attempt"),
                           # the distributions the attempt's key holds, by name and version
                           "distributions": harness_environment().get("distributions", [])}
    if agent is not None:
        key = (agent.identity, str(agent.dir))
        if key not in _agent_states:
            _agent_states[key] = code_state(agent)
        out["agent"] = _agent_states[key]
    return out


__all__ = ["checkout_state", "code_state", "provenance"]
