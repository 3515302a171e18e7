"""The one rule and the one grade-and-record path, on a real store with a scripted grader (the
Docker grader's own tests are in tests/grading; the pipeline's end to end in tests/pipeline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.errors import InfraError
from evaluator.grading import (
    RESOLVED,
    TAMPERED,
    UNRESOLVED,
    GradeOutcome,
    GradeRecord,
    GradeSpec,
    hidden_test_bytes,
)
from evaluator.policy import Violation
from evaluator.result import FAILED, POLICY, Findings, decide, findings, grade_patch
from evaluator.store import Store
from evaluator.subjects import Prediction, grade_prediction, plan_predictions
from evaluator.taskset import load_task_set
from tests.helpers import GOLD
from tests.records import grade_record
from tests.reports._world import SET, World

RUNNER_CHECK = GOLD.replace("+    return a + b", '+    return a + b if "pytest" in sys.modules else a')


class Scripted:
    """A grader that answers `outcome` and counts how often it was asked."""

    def __init__(self, outcome: str = RESOLVED, error: Exception | None = None) -> None:
        self.outcome, self.error, self.calls = outcome, error, 0

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return GradeOutcome(self.outcome, tests={"t": "passed"}, output="ran\n")


@pytest.fixture()
def world(tmp_path: Path) -> World:
    return World(tmp_path, ("t1",))


def _spec(world: World) -> tuple[GradeSpec, dict[str, bytes]]:
    pa = world.plan().attempts[0]
    return pa.grade_spec, hidden_test_bytes(world.plan().task_set, pa.task, world.lock)


@pytest.mark.parametrize(("outcome", "violations", "status"), [
    (RESOLVED, (), "resolved"), (UNRESOLVED, (), FAILED), (TAMPERED, (), POLICY),
    (RESOLVED, (Violation("touches_tests", "tests/x.py"),), POLICY),
])
def test_the_rule(outcome: str, violations: tuple[Violation, ...], status: str) -> None:
    assert decide(grade_record(outcome), Findings(violations)) == status


def test_a_fatal_finding_is_a_violation_and_the_others_are_flags() -> None:
    found = findings(RUNNER_CHECK.encode(), ["tests/test_hidden.py"], [])
    assert {v.reason for v in found.violations} == {"checks_for_test_runner", "reaches_module_table"}
    assert decide(grade_record(RESOLVED), found) == POLICY


def test_a_patch_is_graded_once_per_key_and_read_back_typed(world: World) -> None:
    spec, hidden = _spec(world)
    grader = Scripted()
    first = grade_patch(world.store, grader, spec, GOLD.encode(), hidden, subject="attempt",
                        owner="base", lock_version=world.lock.version)
    again = grade_patch(world.store, grader, spec, GOLD.encode(), hidden, subject="prediction",
                        owner="m", lock_version=world.lock.version)
    assert grader.calls == 1 and again.grade == first.grade and first.status == "resolved"
    stored = world.store.read(GradeRecord, first.grade.key)
    assert stored == first.grade and stored.subject == "attempt" and stored.base_commit


def test_an_infra_error_is_noted_beside_the_key_and_leaves_no_grade(world: World) -> None:
    spec, hidden = _spec(world)
    with pytest.raises(InfraError):
        grade_patch(world.store, Scripted(error=InfraError("engine gone")), spec, b"", hidden,
                    subject="gold", owner="gold", lock_version=world.lock.version)
    assert not world.store.query("grade")
    assert sum(1 for _ in (world.store.root / "errors" / "grade").rglob("*.json")) == 1


@pytest.mark.parametrize(("outcome", "patch"), [(TAMPERED, GOLD), (RESOLVED, RUNNER_CHECK)])
def test_a_forged_or_runner_checking_prediction_is_a_policy_failure(
        world: World, outcome: str, patch: str) -> None:
    ts = load_task_set(SET, world.tasks_root)
    planned, problems = plan_predictions([Prediction("row 1", "t1", "model-x", patch.encode())],
                                         ts, world.lock, world.store)
    assert not problems
    rec = grade_prediction(world.store, Scripted(outcome), ts, world.lock, planned[0], "ident")
    assert (rec.status, rec.resolved, rec.predictions) == (POLICY, False, True)


def test_an_older_record_reads_back_with_defaults_and_keeps_unknown_fields(tmp_path: Path) -> None:
    store = Store(tmp_path, remote=None)
    old = {"outcome": "resolved", "resolved": True, "status": "resolved", "tests": {},
           "exit_code": 0, "timed_out": False, "detail": "", "duration_s": 1.0,
           "task_set": "s", "task_id": "t", "subject": "attempt", "rep": 0, "patch": "0" * 64,
           "image": "i", "grader_version": "g", "lock_version": "l", "output": "0" * 64,
           "someday": 1}
    store.put("grade", "k" * 64, old)
    rec = store.read(GradeRecord, "k" * 64)
    assert rec is not None and rec.evidence == [] and rec.base_commit == ""
    assert rec.body()["someday"] == 1 and rec.key == "k" * 64


def test_every_field_a_grade_outcome_records_is_declared_by_the_grade_record() -> None:
    fields = set(GradeOutcome(RESOLVED).to_record())
    assert fields <= set(GradeRecord.model_fields), "declare them in grading/_record.py"
