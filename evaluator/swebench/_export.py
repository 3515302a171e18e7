"""Reports out: one subject's results on a set as SWE-bench writes them.

- `predictions.jsonl`: `instance_id, model_name_or_path, model_patch` per instance;
- `report.json`: per instance `patch_is_None, patch_exists, patch_successfully_applied,
  resolved, tests_status` (FAIL_TO_PASS, PASS_TO_PASS, FAIL_TO_FAIL, PASS_TO_FAIL, each with
  success and failure lists);
- `summary.json`: the run summary in the shape of the official harness's (totals and id lists,
  schema_version 2), plus an `evaluator` section: the lock and grader versions, tasks left out
  by the gold gate and required tests dropped as flaky;
- `instances.jsonl`: the set's tasks as 5.x instance rows (image, eval_script, log_parser), so
  the same instances can be graded by the official harness or imported again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.attempts import AttemptRecord, attempt_status, load_eval, plan_eval
from evaluator.errors import BadInputError
from evaluator.gold import VerdictRecord, exploit_summary, verdicts
from evaluator.grading import NOT_RUN, GradeRecord, official_keeps, why_not
from evaluator.lock import Lock
from evaluator.result import ResultRecord
from evaluator.store import Store
from evaluator.subjects import planned_of
from evaluator.subjects import prediction_subjects as subjects
from evaluator.swebench._hidden import BaseFiles
from evaluator.swebench._instances import instance_id, instance_row
from evaluator.taskset import Task, TaskSet
from evaluator.version import harness_version


@dataclass(frozen=True)
class Outcome:
    """What a subject produced for one task: its patch (None: no patch at all) and result."""

    task: Task
    patch: str | None
    result: ResultRecord | None
    grade: GradeRecord | None
    keeps: tuple[str, ...] = ()  # skipped PASS_TO_PASS ids the official harness keeps


def official_keeps_of(store: Store, task: Task, grade: GradeRecord | None) -> tuple[str, ...]:
    """The skipped PASS_TO_PASS tests of `grade` that SWE-bench's parser keeps (it names them
    in the run's output: `grading.official_keeps`); none for a hand-written task."""
    if grade is None or task.spec.pass_to_pass_rule != "swebench" or not grade.output:
        return ()
    skipped = [t for t in task.spec.pass_to_pass if grade.tests.get(t) == "skipped"]
    if not skipped:
        return ()
    output = store.get_blob(grade.output).decode("utf-8", "replace")
    return official_keeps(task.spec.results, output, skipped)


def tests_status(task: Task, grade: GradeRecord | None, dropped: dict[str, str],
                 keeps: tuple[str, ...] = ()) -> dict[str, dict[str, list[str]]]:
    """Required tests by kind; PASS_TO_PASS tests the gold gate dropped as flaky are left out
    (summary.json lists them with the reason). A skipped PASS_TO_PASS test is a success only
    where the official harness keeps it (`keeps`)."""
    tests = grade.tests if grade is not None else {}
    out: dict[str, dict[str, list[str]]] = {}
    for name, ids, kept in (
            ("FAIL_TO_PASS", task.spec.fail_to_pass, ()),
            ("PASS_TO_PASS", [t for t in task.spec.pass_to_pass if t not in dropped], keeps)):
        ok = [t for t in ids if tests.get(t) == "passed" or t in kept]
        out[name] = {"success": ok, "failure": [t for t in ids if t not in ok]}
    for name in ("FAIL_TO_FAIL", "PASS_TO_FAIL"):
        out[name] = {"success": [], "failure": []}
    return out


def instance_report(o: Outcome, dropped: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"patch_is_None": o.patch is None, "patch_exists": bool(o.patch),
                             "patch_successfully_applied": False, "resolved": False}
    if o.patch and o.result is not None and o.grade is not None:
        applied = o.grade.outcome not in NOT_RUN
        entry["patch_successfully_applied"] = applied
        entry["resolved"] = o.result.resolved
        if applied:
            entry["tests_status"] = tests_status(o.task, o.grade, dropped, o.keeps)
        if why := why_not(o.grade):
            entry["evaluator_why"] = why
    return entry


def agent_outcomes(store: Store, task_set: TaskSet, lock: Lock, agent: str, sample: int,
                   evals_root: Path, agents_root: Path) -> list[Outcome]:
    plan = plan_eval(task_set, lock, load_eval(task_set.name, evals_root), store, agents_root)
    if agent not in plan.agents:
        raise BadInputError(f"{agent!r} is neither an agent of evals/{task_set.name}.yaml "
                            f"({', '.join(plan.agents)}) nor a graded predictions subject")
    out = []
    for pa in plan.attempts:
        if pa.agent.name != agent or pa.sample_idx != sample:
            continue
        attempt = store.read(AttemptRecord, pa.key)
        _status, result = attempt_status(store, plan, pa)
        patch = store.get_blob(attempt.patch).decode("utf-8", "surrogateescape") \
            if attempt else None
        grade = store.read(GradeRecord, result.grade) if result else None
        out.append(Outcome(pa.task, patch, result, grade, official_keeps_of(store, pa.task, grade)))
    return out


def subject_outcomes(store: Store, task_set: TaskSet, lock: Lock, name: str) -> list[Outcome]:
    subject = subjects(store, task_set.name)[name]
    out = []
    for pp in planned_of(store, task_set, lock, subject):
        result = store.read(ResultRecord, pp.result_key)
        grade = store.read(GradeRecord, pp.grade_key) if result else None
        patch = None if pp.prediction.patch is None else pp.prediction.patch.decode(
            "utf-8", "surrogateescape")
        out.append(Outcome(pp.task, patch, result, grade, official_keeps_of(store, pp.task, grade)))
    return out


def export(store: Store, task_set: TaskSet, lock: Lock, name: str, outcomes: list[Outcome],
           out: Path, base: BaseFiles | None) -> dict[str, Any]:
    """Write the four files under `out`; returns the summary."""
    out.mkdir(parents=True, exist_ok=True)
    gate = verdicts(store, task_set, lock)
    preds = [{"instance_id": instance_id(o.task), "model_name_or_path": name,
              "model_patch": o.patch} for o in outcomes]
    report = {instance_id(o.task): instance_report(o, gate[o.task.id].dropped)
              for o in outcomes}
    _write(out / "predictions.jsonl", "".join(json.dumps(p) + "\n" for p in preds))
    _write(out / "report.json", json.dumps(report, indent=4) + "\n")
    summary = _summary(task_set, lock, gate, outcomes, report)
    _write(out / "summary.json", json.dumps(summary, indent=4) + "\n")
    if base is not None:
        rows = [instance_row(t, lock, base) for t in task_set.tasks]
        _write(out / "instances.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    return summary


def _summary(task_set: TaskSet, lock: Lock, gate: dict[str, VerdictRecord],
             outcomes: list[Outcome], report: dict[str, dict[str, Any]]) -> dict[str, Any]:
    all_ids = sorted(instance_id(t) for t in task_set.tasks)
    submitted = sorted(report)
    empty = sorted(i for i, r in report.items() if not r["patch_exists"])
    graded = {instance_id(o.task) for o in outcomes if o.result is not None}
    # A patch that never reached the tests (it does not apply, or was rejected) is an error in
    # the official summary (its instance has no report), not an unresolved instance.
    not_run = {i for i, r in report.items()
               if r["patch_exists"] and i in graded and not r["patch_successfully_applied"]}
    completed = sorted(i for i in submitted if i in graded and i not in empty and i not in not_run)
    resolved = sorted(i for i in completed if report[i]["resolved"])
    errors = sorted(i for i in submitted if (i not in graded or i in not_run) and i not in empty)
    return {
        "total_instances": len(all_ids), "submitted_instances": len(submitted),
        "completed_instances": len(completed), "resolved_instances": len(resolved),
        "unresolved_instances": len(completed) - len(resolved),
        "empty_patch_instances": len(empty), "error_instances": len(errors),
        "completed_ids": completed, "incomplete_ids": sorted(set(all_ids) - set(submitted)),
        "empty_patch_ids": empty, "submitted_ids": submitted, "resolved_ids": resolved,
        "unresolved_ids": sorted(set(completed) - set(resolved)), "error_ids": errors,
        "schema_version": 2,
        "evaluator": {
            "task_set": task_set.name, "lock_version": lock.version,
            "grader_version": harness_version("grader"),
            "excluded": {instance_id(t): gate[t.id].verdict for t in task_set.tasks
                         if not gate[t.id].valid},
            "dropped_tests": {instance_id(t): gate[t.id].dropped for t in task_set.tasks
                              if gate[t.id].dropped},
            "errors": {i: report[i].get("evaluator_why") or "not graded yet, or an infra error"
                       for i in errors},
            # Left out because a bundled exploit resolves them unflagged: which ones.
            "exploitable": {instance_id(t): gate[t.id].exploitable for t in task_set.tasks
                            if gate[t.id].exploitable},
            "exploit_gate": {k: v for k, v in exploit_summary(gate).items()
                             if k != "exploitable"},
        },
    }


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
