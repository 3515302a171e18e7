"""An attempt's result: its patch graded in a fresh sandbox, then the policy checks."""

from __future__ import annotations

from typing import Any

from evaluator.errors import InfraError
from evaluator.grading import TAMPERED, Grader, hidden_test_bytes
from evaluator.policy import Violation, check_patch, check_trajectory, scan_patch
from evaluator.store import Store
from evaluator.version import harness_version

RESOLVED, FAILED, POLICY = "resolved", "failed", "policy"


def grade_attempt(store: Store, grader: Grader, plan: Any, pa: Any,
                  attempt: dict[str, Any]) -> dict[str, Any]:
    """Grade (once per distinct patch) and store the result record of one attempt."""
    patch = store.get_blob(attempt["patch"])
    gkey = pa.grade_key(attempt["patch"])
    grade = store.get("grade", gkey)
    hidden = hidden_test_bytes(plan.task_set, pa.task, plan.lock)
    if grade is None:
        try:
            outcome = grader.grade(pa.grade_spec, patch, hidden)
        except InfraError as exc:
            store.put_error("grade", gkey, {"cause": type(exc).__name__, "message": str(exc),
                                            "task_id": pa.task.id, "subject": pa.agent.name})
            raise
        grade = {
            **outcome.to_record(), "status": outcome.outcome, "task_set": plan.task_set.name,
            "task_id": pa.task.id, "subject": "attempt", "rep": 0, "patch": attempt["patch"],
            "image": pa.grade_spec.image, "grader_version": harness_version("grader"),
            "lock_version": plan.lock.version, "output": store.put_blob(outcome.output.encode()),
        }
        store.put("grade", gkey, grade)
    findings = scan_patch(patch)
    violations = check_patch(patch, hidden, pa.task.spec.test_files) + check_trajectory(
        attempt.get("actions", []), hidden) + [
        Violation(f.reason, f"{f.path}:{f.line}: {f.text}") for f in findings if f.fatal]
    # A tampered grade is a policy failure in every report, like a rule the patch broke.
    tampered = grade["outcome"] == TAMPERED
    status = POLICY if violations or tampered else RESOLVED if grade["resolved"] else FAILED
    result = {
        "task_set": plan.task_set.name, "task_id": pa.task.id, "subject": pa.agent.name,
        "status": status, "resolved": status == RESOLVED, "sample_idx": pa.sample_idx,
        "attempt": pa.key, "grade": gkey, "grade_outcome": grade["outcome"],
        "violations": [v.to_dict() for v in violations], "exit_reason": attempt["exit_reason"],
        "flags": [f.to_dict() for f in findings if not f.fatal],
        "cost": attempt["cost"], "agent_identity": pa.agent.identity,
        "lock_version": plan.lock.version, "grader_version": grade["grader_version"],
        "simulated": attempt.get("simulated", False),
    }
    store.put("result", pa.result_key(attempt["patch"]), result)
    return result
