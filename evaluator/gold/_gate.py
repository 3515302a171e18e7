"""The gold gate: grade the gold patch and the empty patch K times per task, decide validity."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from evaluator.errors import InfraError
from evaluator.gold._verdict import decide_tests
from evaluator.grading import Grader, GradeSpec, grade_key, grade_spec, hidden_test_bytes
from evaluator.hashing import hash_bytes, hash_json
from evaluator.lock import Lock, blob_matches
from evaluator.store import Store
from evaluator.taskset import Task, TaskSet
from evaluator.version import harness_version

EMPTY_PATCH = b""
VERDICT_RULE = 3


@dataclass(frozen=True)
class GoldPlan:
    """The grade keys of one task's gold gate and the key of its verdict."""

    task: Task
    spec: GradeSpec
    gold_patch_hash: str
    gold_keys: tuple[str, ...]
    empty_keys: tuple[str, ...]

    @property
    def verdict_key(self) -> str:
        # The rule's version: verdicts decided by an older rule (before per-test flakiness)
        # are decided again from the same stored grades, which costs no grading.
        return hash_json({"gold": list(self.gold_keys), "empty": list(self.empty_keys),
                          "rule": VERDICT_RULE})


def plan_gold(task_set: TaskSet, lock: Lock) -> list[GoldPlan]:
    """Keys for every grade of the gate; no file is read but the pins (a no-op run stays cheap)."""
    grader = harness_version("grader")
    reps = range(task_set.spec.gold_reps)
    empty_hash = hash_bytes(EMPTY_PATCH)
    plans = []
    for task in task_set.tasks:
        spec = grade_spec(task_set, task, lock)
        gold_hash = lock.pin(task.id).files[task.spec.gold_patch]
        plans.append(GoldPlan(
            task=task, spec=spec, gold_patch_hash=gold_hash,
            gold_keys=tuple(grade_key(spec, gold_hash, r, grader) for r in reps),
            empty_keys=tuple(grade_key(spec, empty_hash, r, grader) for r in reps),
        ))
    return plans


def run_grade(store: Store, grader: Grader, task_set: TaskSet, lock: Lock, plan: GoldPlan,
              subject: str, rep: int) -> dict[str, Any] | None:
    """Grade one rep of the gold or empty patch unless its record exists; infra errors are noted
    beside the key (never as a result) and raised so the target is retried next run."""
    keys = plan.gold_keys if subject == "gold" else plan.empty_keys
    key = keys[rep]
    if store.has("grade", key):
        return store.get("grade", key)
    patch = plan.task.gold_patch if subject == "gold" else EMPTY_PATCH
    if subject == "gold":
        blob_matches(patch, plan.gold_patch_hash, str(plan.task.path("gold_patch")), task_set.name)
    patch_hash = store.put_blob(patch)
    hidden = hidden_test_bytes(task_set, plan.task, lock)
    started = time.time()
    try:
        outcome = grader.grade(plan.spec, patch, hidden)
    except InfraError as exc:
        store.put_error("grade", key, {"cause": type(exc).__name__, "message": str(exc),
                                       "task_id": plan.task.id, "subject": subject})
        raise
    record = {
        **outcome.to_record(),
        "status": outcome.outcome, "task_set": task_set.name, "task_id": plan.task.id,
        "subject": subject, "rep": rep, "patch": patch_hash, "image": plan.spec.image,
        "base_commit": plan.spec.base_commit, "hidden_tests": plan.spec.hidden_tests_hash,
        "grader_version": harness_version("grader"), "lock_version": lock.version,
        "output": store.put_blob(outcome.output.encode()), "started": started,
    }
    store.put("grade", key, record)
    return record


def write_verdict(store: Store, task_set: TaskSet, lock: Lock, plan: GoldPlan) -> dict[str, Any]:
    """Decide and store the task's verdict from its grade records."""
    gold = [store.get("grade", k) for k in plan.gold_keys]
    empty = [store.get("grade", k) for k in plan.empty_keys]
    d = decide_tests(gold, empty, plan.spec.fail_to_pass, plan.spec.pass_to_pass)
    verdict = d.verdict
    record = {
        "task_set": task_set.name, "task_id": plan.task.id, "status": verdict, "verdict": verdict,
        "why": d.why, "dropped": d.dropped, "fixture": plan.task.spec.fixture,
        "lock_version": lock.version,
        "grader_version": harness_version("grader"),
        "gold_grades": list(plan.gold_keys), "empty_grades": list(plan.empty_keys),
        "gold_resolved": [g and g["resolved"] for g in gold],
        "empty_resolved": [g and g["resolved"] for g in empty],
    }
    if verdict != "incomplete":
        store.put("verdict", plan.verdict_key, record)
    return record


def verdicts(store: Store, task_set: TaskSet, lock: Lock) -> dict[str, dict[str, Any]]:
    """The current verdict record of every task (incomplete where not decided yet)."""
    out = {}
    for plan in plan_gold(task_set, lock):
        rec = store.get("verdict", plan.verdict_key)
        out[plan.task.id] = rec or {"task_id": plan.task.id, "verdict": "incomplete",
                                    "why": f"run `doit gold:{task_set.name}`"}
    return out


def required_spec(spec: GradeSpec, verdict: dict[str, Any]) -> GradeSpec:
    """The grade spec of a task as its verdict leaves it: PASS_TO_PASS tests the gate dropped
    as flaky are no longer required. The spec's key material changes with it, so grades made
    under the full list never count for the reduced one."""
    dropped = verdict.get("dropped") or {}
    if not dropped:
        return spec
    return replace(spec, pass_to_pass=tuple(t for t in spec.pass_to_pass if t not in dropped))
