"""The eval plan: every (agent, valid task, sample) with its key, and what it would cost."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.agents import Agent, check_environment, load_agent
from evaluator.attempts._config import EvalSpec
from evaluator.attempts._isolation import check_isolation
from evaluator.attempts._key import attempt_key, attempt_material, attempt_price, attempt_seed
from evaluator.errors import BadInputError
from evaluator.gold import VALID, required_spec, verdicts
from evaluator.grading import GradeSpec, grade_key, grade_spec
from evaluator.hashing import hash_json
from evaluator.lock import Lock
from evaluator.store import Store
from evaluator.taskset import Task, TaskSet


@dataclass(frozen=True)
class PlannedAttempt:
    agent: Agent
    task: Task
    sample_idx: int
    seed: int
    key: str
    grade_spec: GradeSpec

    @property
    def label(self) -> str:
        return f"{self.agent.name}/{self.task.id}/{self.sample_idx}"

    def grade_key(self, patch_hash: str) -> str:
        return grade_key(self.grade_spec, patch_hash, 0)

    def result_key(self, patch_hash: str) -> str:
        return hash_json({"attempt": self.key, "grade": self.grade_key(patch_hash)})


@dataclass(frozen=True)
class EvalPlan:
    task_set: TaskSet
    lock: Lock
    spec: EvalSpec
    agents: dict[str, Agent]
    attempts: tuple[PlannedAttempt, ...]
    excluded: dict[str, dict[str, Any]]  # task id -> its verdict record
    price_problems: tuple[str, ...] = ()  # agents whose model the price table does not price

    def check_runnable(self) -> None:
        """Refuse to run agents whose cost could not be counted (it would show as $0), or whose
        isolation this machine cannot provide."""
        if self.price_problems:
            lines = "\n".join(f"  - {p}" for p in self.price_problems)
            raise BadInputError(f"the eval of {self.task_set.name!r} cannot price every "
                                f"agent's model:\n{lines}")
        for agent in self.agents.values():
            check_isolation(agent)

    def find(self, label: str) -> PlannedAttempt:
        for pa in self.attempts:
            if pa.label == label:
                return pa
        raise BadInputError(f"no planned attempt {label!r} in the eval of {self.task_set.name!r}")


def plan_eval(task_set: TaskSet, lock: Lock, spec: EvalSpec, store: Store,
              agents_root: str | Path = "agents") -> EvalPlan:
    """Agents x valid tasks x samples; refuses while any gold verdict is undecided, and in a
    Python environment that differs from requirements.lock (a key would not say what ran)."""
    check_environment()
    agents = {name: load_agent(name, agents_root) for name in spec.agents}
    gate = verdicts(store, task_set, lock)
    undecided = sorted(t for t, v in gate.items() if v["verdict"] == "incomplete")
    if undecided:
        raise BadInputError(
            f"the gold gate of {task_set.name!r} is not decided for {len(undecided)} task(s) "
            f"({', '.join(undecided[:5])}); run `doit gold:{task_set.name}` first"
        )
    limits = grade_spec(task_set, task_set.tasks[0], lock).limits
    table = spec.price_table()
    prices = {name: attempt_price(agent, table) for name, agent in agents.items()}
    attempts = []
    for agent in agents.values():
        for task in task_set.tasks:
            if gate[task.id]["verdict"] != VALID:
                continue
            pin = lock.pin(task.id)
            # Without the PASS_TO_PASS tests the gold gate dropped as flaky (keys change too).
            gspec = required_spec(grade_spec(task_set, task, lock), gate[task.id])
            for s in range(spec.samples):
                material = attempt_material(agent, task, pin, s, limits, prices[agent.name])
                attempts.append(PlannedAttempt(agent, task, s, attempt_seed(agent, s),
                                               attempt_key(material), gspec))
    excluded = {t: v for t, v in gate.items() if v["verdict"] != VALID}
    where = spec.price_file or "a price table (`prices:` in the eval config)"
    problems = tuple(
        f"agent {name!r}: model {agents[name].spec.model.id!r} has no price in {where}; add "
        f"`{agents[name].spec.model.id}: {{input_per_mtok: ..., output_per_mtok: ...}}` there, or "
        f"set `model.price: free` (it costs nothing) or `model.price: unpriced` (cost unknown, "
        f"no cost limit) in {agents[name].dir / 'agent.yaml'}"
        for name, price in prices.items() if price is None)
    return EvalPlan(task_set, lock, spec, agents, tuple(attempts), excluded, problems)


def quarantined(store: Store, spec: EvalSpec, key: str) -> bool:
    return store.error_count("attempt", key) >= spec.retry_budget


def estimate_cost(store: Store, agent: Agent) -> tuple[float, str]:
    """Mean cost of this agent's stored attempts, else its per-attempt cost limit (a bound).
    An unpriced model's dollars are unknown: the estimate is its sandbox time alone, and says so."""
    past = [r["cost"]["total_usd"] for r in store.query("attempt", subject=agent.name)]
    unpriced = agent.spec.model.price == "unpriced"
    note = "; model cost unknown (unpriced)" if unpriced else ""
    if past:
        return sum(past) / len(past), f"mean of {len(past)} past attempts{note}"
    if agent.spec.model.price != "table":
        return 0.0, f"no past attempts{note or '; model is free'}"
    return agent.spec.limits.max_cost_usd, "upper bound (cost limit per attempt)"
