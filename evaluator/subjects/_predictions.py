"""Predictions as a subject: `instance_id, model_name_or_path, model_patch` rows graded without
running an agent, through the same grade keys, store and result rule as agents' attempts.

A prediction's grade key is the one any attempt with the same patch on the same pinned task gets
(`grade_key(spec, patch, rep 0)`), so a patch is never graded twice, whoever produced it; an
empty or null patch is the gold gate's empty-patch grade. Each `model_name_or_path` is a
subject; its identity hashes its patches on the set, so a changed predictions file is a new
version of that subject, never mixed with the old one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evaluator.gold import VALID, required_spec, verdicts
from evaluator.grading import Grader, GradeSpec, grade_key, grade_spec, hidden_test_bytes
from evaluator.hashing import hash_bytes, hash_json
from evaluator.lock import Lock
from evaluator.result import ResultRecord, grade_patch, record_result, result_key
from evaluator.store import Record, Store
from evaluator.taskset import Task, TaskSet


@dataclass(frozen=True)
class Prediction:
    where: str
    instance_id: str
    subject: str
    patch: bytes | None  # None: SWE-bench's patch_is_None


class PredictionRecord(Record):
    """A prediction as graded: the predictions' counterpart of an agent's attempt record (its
    key is the result's `attempt`)."""

    KIND = "prediction"

    task_set: str
    task_id: str
    subject: str  # model_name_or_path
    instance_id: str
    patch: str  # blob hash
    patch_is_none: bool = False
    status: str = "done"


@dataclass(frozen=True)
class PlannedPrediction:
    prediction: Prediction
    task: Task
    spec: GradeSpec
    patch_hash: str

    @property
    def key(self) -> str:
        return hash_json({"prediction": self.prediction.subject, "task_set": self.spec.task_set,
                          "task_id": self.task.id, "patch": self.patch_hash})

    @property
    def grade_key(self) -> str:
        return grade_key(self.spec, self.patch_hash, 0)

    @property
    def result_key(self) -> str:
        return result_key(self.key, self.grade_key)


def plan_predictions(preds: list[Prediction], task_set: TaskSet, lock: Lock, store: Store,
                     tasks: Mapping[str, Task] | None = None
                     ) -> tuple[list[PlannedPrediction], list[str]]:
    """The predictions to grade, and a line for each row left out (unknown instance, task not
    valid in the gold gate, a second row for the same subject and instance). `tasks` maps the
    instance ids predictions name to tasks (a format's own ids); by default, the task ids."""
    tasks = tasks if tasks is not None else {t.id: t for t in task_set.tasks}
    gate = verdicts(store, task_set, lock)
    planned, problems, seen = [], [], set()
    for p in preds:
        task = tasks.get(p.instance_id)
        if task is None:
            problems.append(f"{p.where}: instance {p.instance_id!r} is not in task set "
                            f"{task_set.name!r}")
            continue
        verdict = gate[task.id].verdict
        if verdict != VALID:
            problems.append(f"{p.where}: {p.instance_id} is {verdict} in the gold gate "
                            f"(`doit gold:{task_set.name}`); not graded")
            continue
        if (p.subject, task.id) in seen:
            problems.append(f"{p.where}: a second prediction of {p.subject!r} for "
                            f"{p.instance_id}; the first is kept")
            continue
        seen.add((p.subject, task.id))
        spec = required_spec(grade_spec(task_set, task, lock), gate[task.id].dropped)
        planned.append(PlannedPrediction(p, task, spec, hash_bytes(p.patch or b"")))
    return planned, problems


def identity(subject: str, task_set: str, planned: list[PlannedPrediction]) -> str:
    mine = sorted((pp.task.id, pp.patch_hash) for pp in planned if pp.prediction.subject == subject)
    return hash_json({"predictions": subject, "task_set": task_set, "patches": mine})


def grade_prediction(store: Store, grader: Grader, task_set: TaskSet, lock: Lock,
                     pp: PlannedPrediction, ident: str) -> ResultRecord:
    """Grade once per distinct patch and store the prediction's result, decided by the rule
    every subject's results are (a tampered grade or a policy violation is `policy`); a rerun
    reads it."""
    if (done := store.read(ResultRecord, pp.result_key)) is not None:
        return done
    patch = pp.prediction.patch or b""
    store.write(pp.key, PredictionRecord(
        task_set=task_set.name, task_id=pp.task.id, subject=pp.prediction.subject,
        instance_id=pp.prediction.instance_id, patch=store.put_blob(patch),
        patch_is_none=pp.prediction.patch is None))
    graded = grade_patch(store, grader, pp.spec, patch, hidden_test_bytes(task_set, pp.task, lock),
                         subject="prediction", owner=pp.prediction.subject,
                         lock_version=lock.version)
    return record_result(store, pp.result_key, graded, spec=pp.spec,
                         subject=pp.prediction.subject, identity=ident, attempt=pp.key,
                         lock_version=lock.version, exit_reason="prediction",
                         instance_id=pp.prediction.instance_id)
