"""The attempt key: everything pinned that can change what one attempt does."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from evaluator.agents import Agent
from evaluator.hashing import hash_json
from evaluator.lock import TaskPin
from evaluator.sandbox import SandboxLimits
from evaluator.taskset import Task
from evaluator.version import harness_version


def attempt_seed(agent: Agent, sample_idx: int) -> int:
    """Each sample's seed, derived from the agent's base seed so samples differ reproducibly."""
    return int(hash_json([agent.spec.sampling.seed, sample_idx])[:8], 16)


def attempt_material(agent: Agent, task: Task, pin: TaskPin, sample_idx: int,
                     limits: SandboxLimits) -> dict[str, Any]:
    return {
        "image": pin.image,
        "commit": pin.base_commit,
        "task": task.id,
        "problem": pin.files[task.spec.problem_statement],
        "agent": agent.identity,
        "prompts": agent.prompt_hash,
        "model": {"id": agent.spec.model.id, "simulated": agent.simulated,
                  "sampling": agent.spec.sampling.model_dump()},
        "seed": attempt_seed(agent, sample_idx),
        "sample_idx": sample_idx,
        "limits": {"agent": agent.spec.limits.model_dump(), "sandbox": asdict(limits)},
        "harness": harness_version("attempt"),
    }


def attempt_key(material: dict[str, Any]) -> str:
    return hash_json(material)
