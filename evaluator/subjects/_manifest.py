"""Subjects as the reports see them: an agent, or the latest predictions file graded for each
`model_name_or_path` on a set, with one leaderboard row per (subject, task), like an agent's."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.agents import Agent
from evaluator.gold import VALID, VerdictRecord, required_spec, verdicts
from evaluator.grading import grade_spec
from evaluator.lock import Lock
from evaluator.result import ResultRecord
from evaluator.store import Record, Store
from evaluator.subjects._predictions import PlannedPrediction, Prediction
from evaluator.taskset import TaskSet
from evaluator.version import harness_version


class ManifestEntry(BaseModel):
    """One prediction of a graded predictions file: its task, and its patch as a blob hash."""

    model_config = ConfigDict(extra="allow", frozen=True)

    instance_id: str
    task_id: str
    patch: str  # blob
    patch_is_none: bool = False  # the file's model_patch was null: no patch at all


class ManifestRecord(Record):
    """A predictions file as graded on a set: one per (subject, identity); its entries are what
    the reports read the subject's rows from."""

    KIND = "predictions"

    task_set: str
    subject: str  # model_name_or_path
    identity: str
    entries: list[ManifestEntry] = []  # by task id
    graded_at: float = 0.0


MANIFEST = ManifestRecord.KIND


AGENT, PREDICTIONS = "agent", "predictions"


@dataclass(frozen=True)
class Subject:
    """Who a leaderboard row is about: an agent (its attempts), or a predictions file's
    `model_name_or_path` (its patches, graded without running an agent). Its identity is what
    two rows must share to be one version: an agent's code, config and prompts, or the hash of
    a predictions subject's patches on the set."""

    name: str
    identity: str
    kind: str = PREDICTIONS
    entries: tuple[ManifestEntry, ...] = ()  # a predictions subject's rows
    simulated: bool = False


def agent_subject(agent: Agent) -> Subject:
    return Subject(agent.name, agent.identity, AGENT, simulated=agent.simulated)


def write_manifest(store: Store, task_set: str, subject: str, ident: str,
                   planned: list[PlannedPrediction]) -> None:
    entries = [ManifestEntry(instance_id=pp.prediction.instance_id, task_id=pp.task.id,
                             patch=pp.patch_hash, patch_is_none=pp.prediction.patch is None)
               for pp in planned if pp.prediction.subject == subject]
    store.write(ident, ManifestRecord(task_set=task_set, subject=subject, identity=ident,
                                      entries=sorted(entries, key=lambda e: e.task_id),
                                      graded_at=time.time()))


def subjects(store: Store, task_set: str) -> dict[str, Subject]:
    """Each subject's most recently graded predictions file on the set."""
    latest: dict[str, ManifestRecord] = {}
    for rec in store.select(ManifestRecord, task_set=task_set):
        if rec.subject not in latest or rec.graded_at > latest[rec.subject].graded_at:
            latest[rec.subject] = rec
    return {n: Subject(n, r.identity, PREDICTIONS, tuple(r.entries))
            for n, r in sorted(latest.items())}


def planned_of(store: Store, task_set: TaskSet, lock: Lock, subject: Subject,
               gate: Mapping[str, VerdictRecord] | None = None) -> list[PlannedPrediction]:
    """The subject's predictions under the current pins (keys recomputed, so a changed hidden
    test or image makes them ungraded, never silently old)."""
    tasks = {t.id: t for t in task_set.tasks}
    gate = gate if gate is not None else verdicts(store, task_set, lock)
    out = []
    for e in subject.entries:
        task = tasks.get(e.task_id)
        if task is None or e.task_id not in lock.tasks:
            continue
        patch = None if e.patch_is_none else store.get_blob(e.patch)
        spec = required_spec(grade_spec(task_set, task, lock), gate[task.id].dropped)
        out.append(PlannedPrediction(Prediction("", e.instance_id, subject.name, patch), task,
                                     spec, e.patch))
    return out


def subject_cells(store: Store, task_set: TaskSet, lock: Lock, gate: Mapping[str, VerdictRecord],
                  subject: Subject, lock_version: str) -> list[dict[str, Any]]:
    """One cell per valid task: the graded result, ungraded where the pins moved since, and
    failed where the file has no prediction for the task (SWE-bench counts those unresolved)."""
    by_task = {pp.task.id: pp for pp in planned_of(store, task_set, lock, subject, gate)}
    cells = []
    for tid in sorted(t for t, v in gate.items() if v.verdict == VALID):
        pp = by_task.get(tid)
        result = store.read(ResultRecord, pp.result_key) if pp is not None else None
        status = result.status if result else "ungraded" if pp is not None else "failed"
        graded = status in ("resolved", "failed", "policy")
        grader = result.grader_version if result else harness_version("grader")
        cells.append({
            "task_set": task_set.name, "agent": subject.name, "identity": subject.identity,
            "simulated": False, "task_id": tid, "sample_idx": 0, "status": status,
            "graded": graded, "resolved": bool(result and result.resolved),
            "cost_usd": 0.0, "infra_errors": 0,
            "lock_version": lock_version if graded else None,
            "recorded_lock_version": result.lock_version if result else None,
            "grader_version": grader if graded else None,
            "attempt": pp.key if pp else None, "result": result.key if result else None,
            "grade": result.grade if result else None,
            "exit_reason": "prediction" if pp else "no prediction",
            "violations": [v.get("reason") for v in (result.violations if result else [])],
        })
    return cells
