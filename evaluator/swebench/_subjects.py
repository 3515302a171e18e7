"""Predictions subjects as the reports see them: the latest predictions file graded for each
`model_name_or_path` on a set, and one leaderboard row per (subject, task), like an agent's."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from evaluator.gold import VALID, required_spec, verdicts
from evaluator.grading import grade_spec
from evaluator.lock import Lock
from evaluator.store import Store
from evaluator.swebench._predictions import PlannedPrediction, Prediction
from evaluator.taskset import TaskSet
from evaluator.version import harness_version

MANIFEST = "predictions"  # record kind: one per (subject, identity) on a set


@dataclass(frozen=True)
class Subject:
    """A predictions subject; duck-types as an agent for the leaderboard (name, identity)."""

    name: str
    identity: str
    entries: tuple[dict[str, Any], ...]  # instance_id, task_id, patch (blob hash), patch_is_none
    simulated: bool = False


def write_manifest(store: Store, task_set: str, subject: str, ident: str,
                   planned: list[PlannedPrediction]) -> None:
    entries = [{"instance_id": pp.prediction.instance_id, "task_id": pp.task.id,
                "patch": pp.patch_hash, "patch_is_none": pp.prediction.patch is None}
               for pp in planned if pp.prediction.subject == subject]
    store.put(MANIFEST, ident, {"task_set": task_set, "subject": subject, "identity": ident,
                                "entries": sorted(entries, key=lambda e: e["task_id"]),
                                "graded_at": time.time()})


def subjects(store: Store, task_set: str) -> dict[str, Subject]:
    """Each subject's most recently graded predictions file on the set."""
    latest: dict[str, dict[str, Any]] = {}
    for rec in store.query(MANIFEST, task_set=task_set):
        name = str(rec["subject"])
        if name not in latest or rec.get("graded_at", 0) > latest[name].get("graded_at", 0):
            latest[name] = rec
    return {n: Subject(n, r["identity"], tuple(r["entries"])) for n, r in sorted(latest.items())}


def planned_of(store: Store, task_set: TaskSet, lock: Lock, subject: Subject,
               gate: dict[str, dict[str, Any]] | None = None) -> list[PlannedPrediction]:
    """The subject's predictions under the current pins (keys recomputed, so a changed hidden
    test or image makes them ungraded, never silently old)."""
    tasks = {t.id: t for t in task_set.tasks}
    gate = gate if gate is not None else verdicts(store, task_set, lock)
    out = []
    for e in subject.entries:
        task = tasks.get(e["task_id"])
        if task is None or e["task_id"] not in lock.tasks:
            continue
        patch = None if e.get("patch_is_none") else store.get_blob(e["patch"])
        spec = required_spec(grade_spec(task_set, task, lock), gate[task.id])
        out.append(PlannedPrediction(Prediction("", e["instance_id"], subject.name, patch), task,
                                     spec, e["patch"]))
    return out


def subject_cells(store: Store, task_set: TaskSet, lock: Lock, gate: dict[str, dict[str, Any]],
                  subject: Subject, lock_version: str) -> list[dict[str, Any]]:
    """One cell per valid task: the graded result, ungraded where the pins moved since, and
    failed where the file has no prediction for the task (SWE-bench counts those unresolved)."""
    by_task = {pp.task.id: pp for pp in planned_of(store, task_set, lock, subject, gate)}
    cells = []
    for tid in sorted(t for t, v in gate.items() if v["verdict"] == VALID):
        pp = by_task.get(tid)
        result = store.get("result", pp.result_key) if pp is not None else None
        status = result["status"] if result else "ungraded" if pp is not None else "failed"
        graded = status in ("resolved", "failed", "policy")
        grader = result.get("grader_version") if result else harness_version("grader")
        cells.append({
            "task_set": task_set.name, "agent": subject.name, "identity": subject.identity,
            "simulated": False, "task_id": tid, "sample_idx": 0, "status": status,
            "graded": graded, "resolved": bool(result and result.get("resolved")),
            "cost_usd": 0.0, "infra_errors": 0,
            "lock_version": lock_version if graded else None,
            "recorded_lock_version": result.get("lock_version") if result else None,
            "grader_version": grader if graded else None,
            "attempt": pp.key if pp else None, "result": result.get("key") if result else None,
            "grade": result.get("grade") if result else None,
            "exit_reason": "prediction" if pp else "no prediction",
            "violations": [v.get("reason") for v in (result or {}).get("violations", [])],
        })
    return cells
