"""The eval plan: every (agent, valid task, sample) with its key, and what it would cost."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from evaluator.agents import Agent, check_environment, load_agent
from evaluator.attempts._config import EvalSpec
from evaluator.attempts._isolation import (
    NAMESPACE,
    check_isolation,
    effective_isolation,
    strongest,
)
from evaluator.attempts._key import attempt_keys, attempt_price, attempt_seed
from evaluator.attempts._spend import cannot_fit
from evaluator.errors import BadInputError
from evaluator.gold import (
    INCOMPLETE,
    VALID,
    VerdictRecord,
    required_spec,
    verdicts,
    why_undecided,
)
from evaluator.grading import GradeSpec, grade_spec
from evaluator.lock import Lock
from evaluator.result import result_key
from evaluator.settings import settings
from evaluator.store import Store
from evaluator.taskset import Task, TaskSet


@dataclass(frozen=True, slots=True)
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
        return self.grade_spec.attempt_keyer(patch_hash)

    def result_key(self, patch_hash: str) -> str:
        return result_key(self.key, self.grade_key(patch_hash))


@dataclass(frozen=True)
class EvalPlan:
    task_set: TaskSet
    lock: Lock
    spec: EvalSpec
    agents: dict[str, Agent]
    attempts: tuple[PlannedAttempt, ...]
    excluded: dict[str, VerdictRecord]  # task id -> its verdict record
    price_problems: tuple[str, ...] = ()  # agents whose model the price table does not price
    # Agents left out of this eval, and why (an isolation they may not have, or cannot get
    # here): each fails its own part of the eval, the others run.
    refused: dict[str, str] = field(default_factory=dict)
    isolation: str = NAMESPACE  # the least isolation allowed (the operator's floor)
    # (agent/task) pairs left out because the task's problem statement alone passes the agent's
    # cost limit at its price: the task's input, refused before anything is paid.
    unfit: dict[str, str] = field(default_factory=dict)

    def check_runnable(self) -> None:
        """Refuse to run agents whose cost could not be counted (it would show as $0)."""
        if self.price_problems:
            lines = "\n".join(f"  - {p}" for p in self.price_problems)
            raise BadInputError(f"the eval of {self.task_set.name!r} cannot price every "
                                f"agent's model:\n{lines}")

    @functools.cached_property
    def prices(self) -> dict[str, dict[str, Any] | str | None]:
        """Each agent's model price as its attempts' keys hold it (`attempt_price`), the
        price table read once: an attempt's inputs are made again from it, per attempt."""
        table = self.spec.price_table()
        return {name: attempt_price(agent, table) for name, agent in self.agents.items()}

    @functools.cached_property
    def _by_label(self) -> dict[str, PlannedAttempt]:
        return {pa.label: pa for pa in self.attempts}

    def find(self, label: str) -> PlannedAttempt:
        """The planned attempt `<agent>/<task>/<sample>`: one dict lookup (every attempt and
        grade target asks, once each)."""
        try:
            return self._by_label[label]
        except KeyError:
            raise BadInputError(f"no planned attempt {label!r} in the eval of "
                                f"{self.task_set.name!r}") from None


def plan_eval(task_set: TaskSet, lock: Lock, spec: EvalSpec, store: Store,
              agents_root: str | Path = "agents", *, isolation: str | None = None,
              gate: Mapping[str, VerdictRecord] | None = None) -> EvalPlan:
    """Agents x valid tasks x samples; refuses while any gold verdict is undecided, and in a
    Python environment that differs from requirements.lock (a key would not say what ran).
    `isolation` is a run's own least isolation, over the eval config's ($EVAL_ISOLATION when
    not given). An agent that may not run under it is left out, with the reason. `gate`: the
    set's verdict records (`verdicts`) when the caller has read them already (a report holds
    them; 2,000 of them read twice were 57 MB more at once, and 2,000 more file reads)."""
    check_environment()
    floor, set_by = isolation_floor(spec, isolation if isolation is not None
                                    else settings.isolation)
    agents, refused = {}, {}
    for name in spec.agents:
        try:  # a bad agent.yaml, prompt or entry point fails that agent's part alone
            agent = load_agent(name, agents_root)
            agent = with_isolation(agent, effective_isolation(agent, floor, set_by))
            check_isolation(agent)
        except BadInputError as exc:
            refused[name] = str(exc)
            continue
        agents[name] = agent
    if gate is None:
        gate = verdicts(store, task_set, lock)
    undecided = sorted(t for t, v in gate.items() if v.verdict == INCOMPLETE)
    if undecided:
        why = "; ".join(why_undecided(store, task_set.name, undecided, lock.version))
        raise BadInputError(
            f"the gold gate of {task_set.name!r} is not decided for {len(undecided)} task(s) "
            f"({', '.join(undecided[:5])}{', ...' if len(undecided) > 5 else ''}); why: {why}; "
            f"run `doit gold:{task_set.name}` first"
        )
    limits = grade_spec(task_set, task_set.tasks[0], lock).limits
    table = spec.price_table()
    prices = {name: attempt_price(agent, table) for name, agent in agents.items()}
    where = spec.price_file or "a price table (`prices:` in the eval config)"
    problems = tuple(
        f"agent {name!r}: model {agents[name].spec.model.id!r} has no price in {where}; add "
        f"`{agents[name].spec.model.id}: {{input_per_mtok: ..., output_per_mtok: ...}}` there, or "
        f"set `model.price: free` (it costs nothing) or `model.price: unpriced` (cost unknown, "
        f"no cost limit) in {agents[name].dir / 'agent.yaml'}"
        for name, price in prices.items() if price is None)
    for name, problem in zip([n for n, p in prices.items() if p is None], problems, strict=True):
        refused[name] = problem.split(": ", 1)[1]  # its cost could not be counted: it alone waits
    # One grade spec per task, shared by every agent's attempts (and their grade keys' hasher),
    # without the PASS_TO_PASS tests the gold gate dropped as flaky (keys change too).
    specs = {task.id: required_spec(grade_spec(task_set, task, lock), gate[task.id].dropped)
             for task in task_set.tasks if gate[task.id].verdict == VALID}
    attempts, unfit = [], {}
    for agent in agents.values():
        if agent.name in refused:
            continue
        for task in task_set.tasks:
            if task.id not in specs:
                continue
            why = cannot_fit(prices[agent.name], task.path("problem_statement").stat().st_size,
                             agent.spec.limits.max_cost_usd)
            if why:
                unfit[f"{agent.name}/{task.id}"] = why
                continue
            pin = lock.pin(task.id)
            gspec = specs[task.id]
            keys = attempt_keys(agent, task, pin, spec.samples, limits, prices[agent.name])
            for s, key in enumerate(keys):
                attempts.append(PlannedAttempt(agent, task, s, attempt_seed(agent, s), key,
                                               gspec))
    excluded = {t: v for t, v in gate.items() if v.verdict != VALID}
    return EvalPlan(task_set, lock, spec, agents, tuple(attempts), excluded, problems, refused,
                    floor, unfit)


_PAST: dict[tuple[int, str, str], tuple[int, float]] = {}


def _past_costs(index: Any, root: Path, agent: str) -> tuple[int, float]:
    """(how many, mean total_usd) of the agent's stored attempts, per process (forked workers
    ask again)."""
    key = (os.getpid(), str(root), agent)
    if key not in _PAST:
        n, total = 0, 0.0
        for _, cost in index.fields("attempt", ("cost.total_usd",), subject=agent):
            if isinstance(cost, (int, float)):
                n, total = n + 1, total + cost
        _PAST[key] = (n, total / n if n else 0.0)
    return _PAST[key]


def isolation_floor(spec: EvalSpec, override: str | None = None) -> tuple[str, str]:
    """(the least isolation allowed, who set it): the run's own (an API run's `isolation`,
    $EVAL_ISOLATION), the eval config's, else the strongest this machine supports."""
    if override is not None:
        return override, "set for this run (an API run's `isolation`, or $EVAL_ISOLATION)"
    if spec.isolation is not None:
        return spec.isolation, f"set by field 'isolation' of {spec.path}"
    best = strongest()
    return best, (f"the default: the strongest this machine supports; set `isolation:` in "
                  f"{spec.path} to choose")


def with_isolation(agent: Agent, isolation: str) -> Agent:
    """`agent` as it runs: its spec carries the isolation it gets, not only what it asked."""
    if agent.spec.isolation == isolation:
        return agent
    return replace(agent, spec=agent.spec.model_copy(update={"isolation": isolation}))


def quarantined(store: Store, spec: EvalSpec, key: str) -> bool:
    return store.error_count("attempt", key) >= spec.retry_budget


def estimate_cost(store: Store, agent: Agent) -> tuple[float, str]:
    """Mean cost of this agent's stored attempts, else its per-attempt cost limit (a bound).
    An unpriced model's dollars are unknown: the estimate is its sandbox time alone, and says so.

    Made once per process, agent and store, from one aggregate over the index: every attempt
    target asks before it starts, and 100,000 of them must not each read the agent's past."""
    count, mean = _past_costs(store.index, store.root, agent.name)
    unpriced = agent.spec.model.price == "unpriced"
    note = "; model cost unknown (unpriced)" if unpriced else ""
    if count:
        return mean, f"mean of {count} past attempts{note}"
    if agent.spec.model.price != "table":
        return 0.0, f"no past attempts{note or '; model is free'}"
    return agent.spec.limits.max_cost_usd, "upper bound (cost limit per attempt)"
