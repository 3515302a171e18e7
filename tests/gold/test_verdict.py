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


def test_a_rep_with_no_report_is_no_flip() -> None:
    """Issue 35: sympy's empty-patch reps read as no report counted every PASS_TO_PASS test as
    flipping, all were dropped, and a patch breaking one of them was graded resolved."""
    gold = [rec("resolved", f="passed", p="passed", q="passed")] * 3
    silent = grade_record("no_report").model_copy(update={"detail": "the sympy log cannot be "
                                                           "trusted"})
    empty = [silent, rec("unresolved", f="failed", p="passed", q="passed"), silent]
    d = decide_tests(gold, empty, ["f"], ["p", "q"])
    assert d.verdict == VALID and d.dropped == {}
    assert d.no_report == ("empty rep 0", "empty rep 2")
    assert "empty rep 0, empty rep 2 left no report (the sympy log" in d.why


def test_every_empty_rep_without_a_report_still_leaves_gold_to_judge() -> None:
    gold = [rec("resolved", f="passed", p="passed")] * 2
    d = decide_tests(gold, [grade_record("no_report")] * 2, ["f"], ["p"])
    assert d.verdict == VALID and d.dropped == {} and len(d.no_report) == 2


def test_a_gold_rep_with_no_report_is_a_rep_that_did_not_resolve() -> None:
    gold = [rec("resolved", f="passed", p="passed"), grade_record("no_report")]
    d = decide_tests(gold, [rec("unresolved", f="failed", p="passed")] * 2, ["f"], ["p"])
    assert d.verdict == FLAKY and d.dropped == {} and d.no_report == ("gold rep 1",)


def test_required_tests_the_environment_skips_are_named_per_task() -> None:
    gold = [rec("unresolved", f="passed", p="skipped", q="passed", r="skipped")] * 2
    empty = [rec("unresolved", f="failed", p="skipped", q="passed", r="skipped")] * 2
    d = decide_tests(gold, empty, ["f"], ["p", "q", "r"])
    assert d.verdict == BROKEN_GOLD and d.skipped == ("p", "r")
    assert "the environment skips 2 required test(s) with the gold patch: p, r" in d.why


def test_required_ids_no_test_reports_are_named_per_task() -> None:
    gold = [rec("resolved", f="passed", p="missing")] * 2
    d = decide_tests(gold, [rec("unresolved", f="failed", p="missing")] * 2, ["f"], ["p", "z"])
    assert d.unreported == ("p", "z")
