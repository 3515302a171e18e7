"""The judge's rules on hand-made reports: what makes a grade resolved, unresolved or tampered."""

from evaluator.grading._canary import Canaries
from evaluator.grading._judge import digest, judge
from evaluator.grading._junit import JunitReport

C = Canaries("0123456789abcdef", ("t.py",), style="class")
OK, FAIL = f"t.py::{C.class_name}::{C.ok_tag}", f"t.py::{C.class_name}::{C.fail_tag}"
MSG = {FAIL: "AssertionError: " + C.message + " != " + C.message[::-1]}
REQ = ("t.py::a", "t.py::b")


def run(tests: dict[str, str], *, exit_code: int = 1, messages: dict[str, str] | None = None,
        line: dict[str, str] | None = None, output: str | None = None):
    report = JunitReport(dict(tests), dict(tests), MSG if messages is None else messages)
    if output is None:
        output = f'@@evaluator-guard 0123456789abcdef {{"digest": "{digest(line or tests)}", "tests": 4}}'
    return judge(REQ, report, C, output, exit_code, False)


def honest(a: str = "passed") -> dict[str, str]:
    return {"t.py::a": a, "t.py::b": "passed", OK: "passed", FAIL: "failed"}


def test_honest_pass_resolves() -> None:
    v = run(honest())
    assert v.resolved and not v.tampered and v.evidence == ()


def test_honest_failure_is_unresolved_with_the_reason() -> None:
    v = run(honest("failed"))
    assert not v.resolved and not v.tampered and v.reason == "failed: t.py::a"


def test_missing_required_test_is_unresolved() -> None:
    tests = honest()
    del tests["t.py::b"]
    v = run(tests)
    assert not v.resolved and not v.tampered and v.tests["t.py::b"] == "missing"


def test_fail_canary_that_passed_is_tampered() -> None:
    assert run({**honest(), FAIL: "passed"}).tampered


def test_fail_canary_without_its_message_is_tampered() -> None:
    assert run(honest(), messages={FAIL: "AssertionError: canary"}).tampered


def test_decoy_test_in_the_report_is_tampered() -> None:
    v = run({**honest("failed"), "t.py::decoy": "skipped"})
    assert v.tampered and "t.py::decoy" in v.reason


def test_report_rewritten_after_the_run_is_tampered() -> None:
    v = run(honest(), line=honest("failed"))
    assert v.tampered and "rewritten after the run" in v.reason


def test_exit_zero_over_a_failing_canary_is_tampered() -> None:
    assert run(honest(), exit_code=0).tampered


def test_missing_guard_line_with_passing_tests_is_tampered() -> None:
    assert run(honest(), output="").tampered


def test_import_error_that_hides_the_canaries_is_only_unresolved() -> None:
    v = run({"t.py::b": "passed"}, exit_code=2)
    assert not v.resolved and not v.tampered and "canaries" in v.reason


def test_more_canaries_than_planted_is_tampered() -> None:
    assert run({**honest(), f"u.py::X::{C.ok_tag}": "passed"}).tampered


def test_without_canaries_a_clean_run_exits_zero() -> None:
    tests = {"t.py::a": "passed", "t.py::b": "passed"}
    report = JunitReport(tests, tests, {})
    out = f'@@evaluator-guard 0123456789abcdef {{"digest": "{digest(tests)}"}}'
    assert judge(REQ, report, Canaries("0123456789abcdef", ()), out, 0, False).resolved
