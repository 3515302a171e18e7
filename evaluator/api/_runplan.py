"""What a run is: one agent version on one task set at a number of samples, planned exactly as
`doit eval:<set>` plans it with EVAL_ONLY_AGENTS and EVAL_SAMPLES set."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evaluator.agents import Agent, load_agent
from evaluator.api._errors import AgentVersionError, NotReadyError, UnknownNameError
from evaluator.api._settings import Settings
from evaluator.attempts import EvalPlan, load_eval, plan_eval
from evaluator.errors import BadInputError, StaleLockError
from evaluator.gold import INCOMPLETE, verdicts
from evaluator.lock import load_locked
from evaluator.store import Store
from evaluator.taskset import load_task_set

NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}"
IDENTITY_PATTERN = r"[0-9a-f]{32}"
AGENT_VERSION_PATTERN = rf"^{NAME_PATTERN}(@{IDENTITY_PATTERN})?$"
_NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class AgentRef:
    """`name` or `name@identity` (an agent pinned to one version of its code, config, prompts)."""

    name: str
    identity: str | None = None

    @classmethod
    def parse(cls, text: str) -> AgentRef:
        name, _, identity = text.partition("@")
        if not _NAME.fullmatch(name) or (identity and not re.fullmatch(IDENTITY_PATTERN, identity)):
            raise UnknownNameError(f"agent {text!r} is not `name` or `name@identity` (identity: 32 "
                                   f"hex digits, as `Agent.identity` prints it)")
        return cls(name, identity or None)


def _known(root: Path, pattern: str) -> list[str]:
    return sorted(p.parent.name for p in root.glob(pattern))


def check_task_set(settings: Settings, name: str) -> None:
    """The set exists under EVAL_TASKS and has an eval config under EVAL_EVALS."""
    if not _NAME.fullmatch(name) or not (settings.tasks_root / name / "set.yaml").is_file():
        raise UnknownNameError(f"unknown task set {name!r}; known: "
                               f"{_known(settings.tasks_root, '*/set.yaml')}")
    if not (settings.evals_root / f"{name}.yaml").is_file():
        raise UnknownNameError(f"task set {name!r} has no eval config: create "
                               f"{settings.evals_root / name}.yaml (see evals/demo.yaml)")


def resolve_agent(settings: Settings, ref: AgentRef) -> Agent:
    """The agent as configured now; refuses a pinned identity that is not today's."""
    if not (settings.agents_root / ref.name / "agent.yaml").is_file():
        raise UnknownNameError(f"unknown agent {ref.name!r}; known: "
                               f"{_known(settings.agents_root, '*/agent.yaml')}")
    agent = load_agent(ref.name, settings.agents_root)
    if ref.identity is not None and ref.identity != agent.identity:
        raise AgentVersionError(
            f"agent {ref.name!r} is now version {agent.identity}, not {ref.identity}: its code, "
            f"config or prompts changed; post {ref.name}@{agent.identity} (or the bare name) to "
            f"run the current version, or restore agents/{ref.name} to run the old one")
    return agent


def default_samples(settings: Settings, task_set: str) -> int:
    return load_eval(task_set, settings.evals_root).samples


def run_plan(settings: Settings, task_set: str, agent: str, samples: int,
             isolation: str | None = None) -> EvalPlan:
    """The plan `doit eval:<set>` makes for this run; NotReadyError when doit would refuse,
    BadInputError when the agent may not run under the run's least isolation."""
    ts = load_task_set(task_set, settings.tasks_root)
    try:
        lock = load_locked(ts, str(settings.lock_dir))
    except StaleLockError as exc:
        raise NotReadyError(f"task set {task_set!r} cannot be evaluated: {exc}\nrun "
                            f"`doit lock:{task_set}` then `doit gold:{task_set}`") from None
    store = Store(settings.store)
    undecided = sorted(t for t, v in verdicts(store, ts, lock).items() if v.verdict == INCOMPLETE)
    if undecided:
        raise NotReadyError(f"the gold gate of {task_set!r} is not decided for {len(undecided)} "
                            f"task(s) ({', '.join(undecided[:5])}); run `doit gold:{task_set}` "
                            f"first")
    spec = load_eval(task_set, settings.evals_root)
    spec = spec.model_copy(update={"agents": [agent], "samples": samples})
    plan = plan_eval(ts, lock, spec, store, settings.agents_root, isolation=isolation)
    if agent in plan.refused:
        raise BadInputError(f"agent {agent!r} cannot run in this run: {plan.refused[agent]}")
    return plan
