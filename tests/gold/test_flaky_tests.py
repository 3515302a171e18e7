"""The gate over real records in a real store, with a scripted grader (the Grader seam) whose
PASS_TO_PASS test flips between reps: the test is dropped, the task stays valid, and the grade
key of everything graded after the gate changes with what is required."""

from __future__ import annotations

from pathlib import Path

from evaluator.gold import VALID, plan_gold, required_spec, run_grade, verdicts, write_verdict
from evaluator.grading import GradeOutcome, GradeSpec, grade_key
from evaluator.lock import resolve_lock
from evaluator.store import Store
from evaluator.taskset import load_task_set
from tests.helpers import make_set

F2P, P2P_FLAKY, P2P = ("tests/test_hidden.py::test_add", "tests/test_visible.py::test_zero",
                       "tests/test_hidden.py::test_zero_hidden")


class Pins:
    def image(self, ref: str) -> str:
        return "sha256:" + "1" * 64

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        return "2" * 40


class FlippingGrader:
    """Gold fixes F2P; the flaky test fails on every second grade of each patch."""

    def __init__(self) -> None:
        self.calls: dict[bytes, int] = {}

    def grade(self, spec: GradeSpec, patch: bytes, hidden: dict[str, bytes]) -> GradeOutcome:
        n = self.calls[patch] = self.calls.get(patch, 0) + 1
        tests = {F2P: "passed" if patch else "failed", P2P: "passed",
                 P2P_FLAKY: "failed" if n % 2 == 0 else "passed"}
        ok = all(s == "passed" for s in tests.values())
        return GradeOutcome("resolved" if ok else "unresolved", tests=tests, exit_code=int(not ok))


def test_flaky_pass_to_pass_is_dropped_and_required_tests_are_in_the_keys(tmp_path: Path) -> None:
    make_set(tmp_path, "mini", ("add-bug",), gold_reps=2)
    ts = load_task_set("mini", tmp_path)
    lock, store, grader = resolve_lock(ts, Pins()), Store(tmp_path / "store", remote=None), \
        FlippingGrader()
    [plan] = plan_gold(ts, lock)
    for subject in ("gold", "empty"):
        for rep in range(2):
            run_grade(store, grader, ts, lock, plan, subject, rep)
    record = write_verdict(store, ts, lock, plan)
    assert record.verdict == VALID and list(record.dropped) == [P2P_FLAKY]
    reduced = required_spec(plan.spec, verdicts(store, ts, lock)["add-bug"].dropped)
    assert reduced.pass_to_pass == (P2P,) and reduced.fail_to_pass == plan.spec.fail_to_pass
    assert grade_key(reduced, "p", 0) != grade_key(plan.spec, "p", 0)
    assert required_spec(plan.spec, {}) is plan.spec
    from evaluator.subjects import Prediction, plan_predictions

    [pp], problems = plan_predictions([Prediction("p", "add-bug", "m", b"")], ts, lock, store)
    assert not problems and pp.spec.pass_to_pass == (P2P,)
