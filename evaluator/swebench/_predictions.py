"""Predictions in: grade `instance_id, model_name_or_path, model_patch` rows without running an
agent, through the same grade keys and store as agents' attempts.

A prediction's grade key is the one any attempt with the same patch on the same pinned task gets
(`grade_key(spec, patch, rep 0)`), so a patch is never graded twice, whoever produced it; an
empty or null patch is the gold gate's empty-patch grade. Each `model_name_or_path` is a
subject; its identity hashes its patches on the set, so a changed predictions file is a new
version of that subject, never mixed with the old one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import BadInputError, InfraError
from evaluator.gold import VALID, required_spec, verdicts
from evaluator.grading import Grader, GradeSpec, grade_key, grade_spec, hidden_test_bytes
from evaluator.hashing import hash_bytes, hash_json
from evaluator.lock import Lock
from evaluator.policy import check_patch
from evaluator.store import Store
from evaluator.swebench._rows import read_rows
from evaluator.taskset import Task, TaskSet
from evaluator.version import harness_version

META_FILE = "swebench.json"


@dataclass(frozen=True)
class Prediction:
    where: str
    instance_id: str
    subject: str
    patch: bytes | None  # None: SWE-bench's patch_is_None


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
        return hash_json({"prediction": self.key, "grade": self.grade_key})


def read_predictions(path: Path) -> list[Prediction]:
    """JSONL, a JSON list, or a JSON object keyed by instance id; BadInputError naming the row."""
    out = []
    for row in read_rows(path):
        d = row.data
        iid, model, patch = d.get("instance_id"), d.get("model_name_or_path"), d.get("model_patch")
        if not isinstance(iid, str) or not iid:
            raise BadInputError(f"{row.where}: field 'instance_id' is missing or not a string")
        if not isinstance(model, str) or not model:
            raise BadInputError(f"{row.where}: field 'model_name_or_path' is missing; name the "
                                "model (it is the subject on the leaderboard)")
        if patch is not None and not isinstance(patch, str):
            raise BadInputError(f"{row.where}: field 'model_patch' must be a string or null")
        out.append(Prediction(row.where, iid, model,
                              None if patch is None else patch.encode("utf-8", "surrogateescape")))
    return out


def instance_tasks(task_set: TaskSet) -> dict[str, Task]:
    """SWE-bench instance id -> task: from the importer's swebench.json, else the task's id."""
    out: dict[str, Task] = {}
    for task in task_set.tasks:
        meta = task.dir / META_FILE
        iid = task.id
        if meta.is_file():
            iid = str(json.loads(meta.read_text(encoding="utf-8")).get("instance_id") or task.id)
        out[iid] = task
    return out


def plan_predictions(preds: list[Prediction], task_set: TaskSet, lock: Lock, store: Store
                     ) -> tuple[list[PlannedPrediction], list[str]]:
    """The predictions to grade, and a line for each row left out (unknown instance, task not
    valid in the gold gate, a second row for the same subject and instance)."""
    tasks = instance_tasks(task_set)
    gate = verdicts(store, task_set, lock)
    planned, problems, seen = [], [], set()
    for p in preds:
        task = tasks.get(p.instance_id)
        if task is None:
            problems.append(f"{p.where}: instance {p.instance_id!r} is not in task set "
                            f"{task_set.name!r}")
            continue
        verdict = gate[task.id]["verdict"]
        if verdict != VALID:
            problems.append(f"{p.where}: {p.instance_id} is {verdict} in the gold gate "
                            f"(`doit gold:{task_set.name}`); not graded")
            continue
        if (p.subject, task.id) in seen:
            problems.append(f"{p.where}: a second prediction of {p.subject!r} for "
                            f"{p.instance_id}; the first is kept")
            continue
        seen.add((p.subject, task.id))
        spec = required_spec(grade_spec(task_set, task, lock), gate[task.id])
        planned.append(PlannedPrediction(p, task, spec, hash_bytes(p.patch or b"")))
    return planned, problems


def identity(subject: str, task_set: str, planned: list[PlannedPrediction]) -> str:
    mine = sorted((pp.task.id, pp.patch_hash) for pp in planned if pp.prediction.subject == subject)
    return hash_json({"predictions": subject, "task_set": task_set, "patches": mine})


def grade_prediction(store: Store, grader: Grader, task_set: TaskSet, lock: Lock,
                     pp: PlannedPrediction, ident: str) -> dict[str, Any]:
    """Grade once per distinct patch and store the prediction's result; a rerun reads it."""
    if (done := store.get("result", pp.result_key)) is not None:
        return done
    patch = pp.prediction.patch or b""
    store.put("prediction", pp.key, {
        "task_set": task_set.name, "task_id": pp.task.id, "subject": pp.prediction.subject,
        "instance_id": pp.prediction.instance_id, "patch": store.put_blob(patch),
        "patch_is_none": pp.prediction.patch is None, "status": "done"})
    hidden = hidden_test_bytes(task_set, pp.task, lock)
    grade = store.get("grade", pp.grade_key)
    if grade is None:
        try:
            outcome = grader.grade(pp.spec, patch, hidden)
        except InfraError as exc:
            store.put_error("grade", pp.grade_key, {"cause": type(exc).__name__, "message": str(exc),
                                                    "task_id": pp.task.id,
                                                    "subject": pp.prediction.subject})
            raise
        grade = {**outcome.to_record(), "status": outcome.outcome, "task_set": task_set.name,
                 "task_id": pp.task.id, "subject": "prediction", "rep": 0, "patch": pp.patch_hash,
                 "image": pp.spec.image, "grader_version": harness_version("grader"),
                 "lock_version": lock.version, "output": store.put_blob(outcome.output.encode())}
        store.put("grade", pp.grade_key, grade)
    violations = check_patch(patch, hidden, pp.task.spec.test_files)
    status = "policy" if violations else "resolved" if grade["resolved"] else "failed"
    result = {
        "task_set": task_set.name, "task_id": pp.task.id, "subject": pp.prediction.subject,
        "instance_id": pp.prediction.instance_id, "status": status,
        "resolved": status == "resolved", "sample_idx": 0, "attempt": pp.key,
        "grade": pp.grade_key, "grade_outcome": grade["outcome"], "predictions": True,
        "violations": [v.to_dict() for v in violations], "exit_reason": "prediction",
        "cost": {"total_usd": 0.0}, "agent_identity": ident, "lock_version": lock.version,
        "grader_version": grade["grader_version"], "simulated": False,
    }
    store.put("result", pp.result_key, result)
    return result
