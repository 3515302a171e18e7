"""The attempt key: everything pinned that can change what one attempt does."""

from __future__ import annotations

import functools
from dataclasses import asdict
from typing import Any

from evaluator.agents import Agent
from evaluator.hashing import canonical_items, hash_json, keyer
from evaluator.lock import TaskPin
from evaluator.model import Prices
from evaluator.sandbox import SandboxLimits
from evaluator.taskset import Task
from evaluator.version import harness_version


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
        "harness": harness_version("attempt"),
        # A simulated agent's replies come from the simulator's code: editing it re-runs them.
        "simulator": harness_version("simulated") if agent.simulated else None,
    }


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
