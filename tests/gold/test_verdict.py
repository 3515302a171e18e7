from evaluator.gold import (
    BROKEN_GOLD,
    FLAKY,
    INCOMPLETE,
    PASSES_WITHOUT_FIX,
    VALID,
    decide,
    decide_tests,
)
from evaluator.grading import GradeRecord
from tests.records import grade_record


def g(resolved: bool, **tests: str) -> GradeRecord:
    return grade_record(resolved, **tests)


def test_valid() -> None:
    assert decide([g(True, a="passed")] * 3, [g(False, a="failed")] * 3)[0] == VALID


def test_flaky_when_reps_disagree_overall() -> None:
    assert decide([g(True), g(False), g(True)], [g(False)] * 3)[0] == FLAKY


def test_flaky_when_one_test_flips_even_if_overall_agrees() -> None:
    empty = [g(False, a="failed", b="passed"), g(False, a="failed", b="failed")]
    verdict, why = decide([g(True, a="passed", b="passed")] * 2, empty)
    assert verdict == FLAKY and "b" in why


def test_broken_gold() -> None:
    assert decide([g(False, a="failed")] * 3, [g(False, a="failed")] * 3)[0] == BROKEN_GOLD


def test_passes_without_fix() -> None:
    assert decide([g(True)] * 3, [g(True)] * 3)[0] == PASSES_WITHOUT_FIX


def test_missing_rep_is_incomplete() -> None:
    assert decide([g(True), None], [g(False)] * 2)[0] == INCOMPLETE


def rec(outcome: str, **tests: str) -> GradeRecord:
    return grade_record(outcome, **tests)


def test_a_flipping_pass_to_pass_test_is_dropped_and_the_task_stays_valid() -> None:
    gold = [rec("resolved", f="passed", p="passed", q="passed"),
            rec("unresolved", f="passed", p="failed", q="passed")]
    empty = [rec("unresolved", f="failed", p="passed", q="passed")] * 2
    d = decide_tests(gold, empty, ["f"], ["p", "q"])
    assert d.verdict == VALID and list(d.dropped) == ["p"]
    assert "passed in 3 of 4 reps" in d.dropped["p"] and "dropped flaky" in d.why


def test_a_pass_to_pass_test_failing_in_every_gold_rep_but_not_empty_ones_is_dropped() -> None:
    gold = [rec("unresolved", f="passed", p="failed")] * 2
    d = decide_tests(gold, [rec("unresolved", f="failed", p="passed")] * 2, ["f"], ["p"])
    assert d.verdict == VALID and list(d.dropped) == ["p"]


def test_a_flipping_fail_to_pass_test_keeps_the_task_flaky() -> None:
    gold = [rec("resolved", f="passed"), rec("unresolved", f="failed")]
    d = decide_tests(gold, [rec("unresolved", f="failed")] * 2, ["f"], [])
    assert d.verdict == FLAKY and "FAIL_TO_PASS" in d.why and not d.dropped


def test_a_dropped_test_does_not_hide_another_failure() -> None:
    gold = [rec("unresolved", f="failed", p="passed"), rec("unresolved", f="failed", p="failed")]
    d = decide_tests(gold, [rec("unresolved", f="failed", p="passed")] * 2, ["f"], ["p"])
    assert d.verdict == BROKEN_GOLD and list(d.dropped) == ["p"]
