"""The attempt key: everything pinned that can change what one attempt does.

Of the harness it holds what an agent can observe, as declared behaviour versions (the
contracts of `harness_version("attempt")`: sandbox observation, repository seal, model client,
scaffold surface; docs/contracts.md), and the distributions the attempt's own code path imports,
found as an agent's are (`code_closure`): never the harness's source, nor the whole
requirements.lock, so a refactor or a web library's upgrade re-runs no attempt.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import asdict
from typing import Any

from evaluator.agents import Agent, code_closure, environment_identity
from evaluator.hashing import canonical_items, hash_json, keyer
from evaluator.lock import TaskPin
from evaluator.model import Prices
from evaluator.sandbox import SandboxLimits
from evaluator.taskset import Task
from evaluator.version import contract_versions

# Where the harness's side of an attempt starts: running it (sandbox, model client, seal, the
# patch) and the agent's process. What they import, transitively, is the attempt's code path.
ATTEMPT_ROOTS = ("evaluator.attempts._run", "evaluator.agents._child")


def attempt_seed(agent: Agent, sample_idx: int) -> int:
    """Each sample's seed, derived from the agent's base seed so samples differ reproducibly."""
    return _seed(agent.spec.sampling.seed, sample_idx)


@functools.lru_cache(maxsize=65536)
def _seed(base: int | None, sample_idx: int) -> int:
    return int(hash_json([base, sample_idx])[:8], 16)


def attempt_price(agent: Agent, prices: Prices) -> dict[str, Any] | str | None:
    """The model's price as it bears on the attempt (the cost limit trips by it): its table
    entry, `free` or `unpriced`; None when the agent wants a table entry and there is none."""
    mode = agent.spec.model.price
    if mode != "table":
        return mode
    price = prices.get(agent.spec.model.id)
    return None if price is None else price.model_dump()


def attempt_material(agent: Agent, task: Task, pin: TaskPin, sample_idx: int,
                     limits: SandboxLimits, price: dict[str, Any] | str | None = None,
                     ) -> dict[str, Any]:
    return {
        "image": pin.image,
        "commit": pin.base_commit,
        "task": task.id,
        "problem": pin.files[task.spec.problem_statement],
        "activate": task.spec.activate,  # the environment every command of the agent gets
        "agent": agent.identity,
        "prompts": agent.prompt_hash,
        "model": {"id": agent.spec.model.id, "simulated": agent.simulated,
                  "sampling": agent.spec.sampling.model_dump(), "price": price},
        "seed": attempt_seed(agent, sample_idx),
        "sample_idx": sample_idx,
        "limits": {"agent": agent.spec.limits.model_dump(), "sandbox": asdict(limits)},
        # What the agent's own process could reach can change what it does (a scaffold that
        # reads a file outside its folder works under one and fails under the other).
        "isolation": agent.spec.isolation or "namespace",
        "harness": {"contracts": contract_versions("attempt"), "environment": harness_environment()},
        # A simulated agent's replies come from the simulator: a new version of it re-runs them.
        "simulator": contract_versions("simulated") if agent.simulated else None,
    }


@functools.cache
def harness_environment() -> dict[str, Any]:
    """The interpreter and the distributions the attempt's code path imports (their closure by
    `Requires-Dist`, with start-up code), as an agent's identity holds its own: a distribution
    no attempt imports (a plotting or web library) is not in it."""
    closure = code_closure(ATTEMPT_ROOTS, sys.path)
    return environment_identity(closure.external)


def input_digest(material: dict[str, Any]) -> dict[str, Any]:
    """What each part of an attempt's key was, compact enough to read back for a whole set in
    one query (`doit plan` says from it which input moved): versions and short values as they
    are, anything larger by a short hash. The per-sample parts (seed, sample index) are left
    out: they name the slot, they do not move."""
    out: dict[str, Any] = {}
    for part, value in material.items():
        if part in ("seed", "sample_idx"):
            continue
        if part == "harness":
            out[part] = {"contracts": value["contracts"],
                         "environment": hash_json(value["environment"])[:16]}
        elif part == "simulator":
            out[part] = value  # contract versions, or None
        elif isinstance(value, (dict, list)) or (isinstance(value, str) and len(value) > 40):
            out[part] = hash_json(value)[:16]
        else:
            out[part] = value
    return out


def attempt_key(material: dict[str, Any]) -> str:
    return hash_json(material)


# The fields of an attempt's material that differ between the samples of one agent and task.
_PER_SAMPLE = ("sample_idx", "seed")


def attempt_keys(agent: Agent, task: Task, pin: TaskPin, samples: int, limits: SandboxLimits,
                 price: dict[str, Any] | str | None = None) -> list[str]:
    """`attempt_key(attempt_material(...))` of samples 0 .. samples-1, the material made and
    serialized once: a plan of 100,000 attempts hashes only what differs per sample."""
    base = attempt_material(agent, task, pin, 0, limits, price)
    key = keyer(canonical_items({k: v for k, v in base.items() if k not in _PER_SAMPLE}),
                *_PER_SAMPLE)
    return [key(s, attempt_seed(agent, s)) for s in range(samples)]


__all__ = ["ATTEMPT_ROOTS", "attempt_key", "attempt_keys", "attempt_material", "attempt_price",
           "attempt_seed", "harness_environment", "input_digest"]
