from evaluator.gold import BROKEN_GOLD, FLAKY, INCOMPLETE, PASSES_WITHOUT_FIX, VALID, decide


def g(resolved: bool, **tests: str) -> dict[str, object]:
    return {"resolved": resolved, "tests": tests}


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
