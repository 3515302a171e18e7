"""An attempt's result: its patch graded and decided on the one path every subject takes."""

from __future__ import annotations

from typing import Any

from evaluator.attempts._record import AttemptRecord
from evaluator.grading import Grader, hidden_test_bytes
from evaluator.result import ResultRecord, grade_patch, record_result
from evaluator.store import Store


def grade_attempt(store: Store, grader: Grader, plan: Any, pa: Any,
                  attempt: AttemptRecord) -> ResultRecord:
    """Grade (once per distinct patch) and store the result record of one attempt."""
    patch = store.get_blob(attempt.patch)
    hidden = hidden_test_bytes(plan.task_set, pa.task, plan.lock)
    graded = grade_patch(store, grader, pa.grade_spec, patch, hidden, subject="attempt",
                         owner=pa.agent.name, lock_version=plan.lock.version,
                         actions=attempt.actions)
    return record_result(
        store, pa.result_key(attempt.patch), graded, spec=pa.grade_spec, subject=pa.agent.name,
        identity=pa.agent.identity, attempt=pa.key, lock_version=plan.lock.version,
        sample_idx=pa.sample_idx, exit_reason=attempt.exit_reason, cost=attempt.cost,
        simulated=attempt.simulated)
