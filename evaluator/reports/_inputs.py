"""Everything a report stands on, loaded and checked before a single number is computed."""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.attempts import EvalPlan, EvalSpec, load_eval, plan_eval
from evaluator.errors import StaleLockError
from evaluator.gold import INCOMPLETE, VerdictRecord, plan_gold, why_undecided
from evaluator.lock import Lock, load_locked
from evaluator.reports._sources import Sources
from evaluator.store import Store
from evaluator.subjects import prediction_subjects
from evaluator.taskset import TaskSet, load_task_set
from evaluator.version import harness_version

_MAX_LISTED = 10


@dataclass(frozen=True)
class Inputs:
    """A task set with its current lock, gold gate and eval plan, over one store."""

    store: Store
    task_set: TaskSet
    lock: Lock
    spec: EvalSpec
    plan: EvalPlan
    gate: dict[str, VerdictRecord]  # task id -> verdict record
    grader_version: str
    sources: Sources
    lock_version: str  # Lock.version hashes every pin on each access: read it once

    @property
    def name(self) -> str:
        return self.task_set.name

    @property
    def valid_tasks(self) -> list[str]:
        return sorted(t for t, v in self.gate.items() if v.valid)


def open_inputs(name: str, sources: Sources) -> Inputs:
    """Load and check the set, its lock and gold gate; StaleLockError names every problem.

    The lock must match the files on disk (`load_locked`), and every task must have a gold
    verdict under that lock and the harness's current grader: a verdict from other inputs says
    nothing about which tasks are valid now.
    """
    task_set = load_task_set(name, sources.tasks_root)
    lock = load_locked(task_set, str(sources.lock_dir))
    store = sources.open_store()
    spec = _eval_or_predictions(name, sources, store)
    grader = harness_version("grader")
    gate = _gate(store, task_set, lock)
    undecided = sorted(t for t, v in gate.items() if v.verdict == INCOMPLETE)
    if undecided:
        raise StaleLockError(
            f"the gold gate of {name!r} is not decided under lock version {lock.version} and "
            f"grader version {grader} for {len(undecided)} task(s)",
            _gate_problems(store, name, undecided, lock),
        )
    plan = plan_eval(task_set, lock, spec, store, sources.agents_root, gate=gate)
    return Inputs(store, task_set, lock, spec, plan, gate, grader, sources, lock.version)


# What a report counts of each exploit (`exploit_summary`); the rest (the grade, the means,
# the why) is read again, record by record, by the one page that shows it (`site_of`).
_EXPLOIT_COUNTED = ("status", "caught_by", "graded")


def _gate(store: Store, task_set: TaskSet, lock: Lock) -> dict[str, VerdictRecord]:
    """`gold.verdicts`, each record read once and held without its exploits' details: they are
    95% of a verdict's 12 KB, and 2,000 tasks' full records were 57 MB of a report's memory."""
    gate = {}
    for plan in plan_gold(task_set, lock, store):
        found = store.read(VerdictRecord, plan.verdict_key)
        gate[plan.task.id] = VerdictRecord.undecided(plan.task.id, task_set.name) \
            if found is None else found.model_copy(update={"exploits": {
                family: {k: e[k] for k in _EXPLOIT_COUNTED if k in e}
                for family, e in found.exploits.items()}})
    return gate


def _eval_or_predictions(name: str, sources: Sources, store: Store) -> EvalSpec:
    """The set's eval config; a set with graded predictions but no evals/<set>.yaml reports
    its predictions subjects alone."""
    if not (sources.evals_root / f"{name}.yaml").is_file() and prediction_subjects(store, name):
        return EvalSpec.model_construct(task_set=name, agents=[])
    return load_eval(name, sources.evals_root)


def _gate_problems(store: Store, name: str, undecided: list[str], lock: Lock) -> list[str]:
    shown = ", ".join(undecided[:_MAX_LISTED]) + (" ..." if len(undecided) > _MAX_LISTED else "")
    # Say why: usually a contract's version moved (a harness upgrade), not fixed by waiting.
    return [f"no verdict for: {shown}",
            *(f"why: {line}" for line in why_undecided(store, name, undecided, lock.version)),
            f"run `doit gold:{name}` (then `doit eval:{name}`)"]
