from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.errors import BadInputError
from evaluator.grading import READERS, STATUSES, ResultsError, reader_for
from tests.grading.runners import EXPECTED, run_output, write_repo


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def style_output(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                 ) -> tuple[str, str]:
    root = write_repo(tmp_path_factory.mktemp(request.param), request.param)
    return request.param, run_output(root, request.param)


def test_each_reader_reads_its_runners_real_output(style_output: tuple[str, str]) -> None:
    style, output = style_output
    assert READERS[style].read(output) == EXPECTED[style]


def test_statuses_are_the_five_words(style_output: tuple[str, str]) -> None:
    style, output = style_output
    assert set(READERS[style].read(output).values()) <= set(STATUSES)


def test_a_cut_log_is_refused(style_output: tuple[str, str]) -> None:
    style, output = style_output
    with pytest.raises(ResultsError):
        READERS[style].read(output[: len(output) // 3])


def test_unknown_reader_names_the_known_ones() -> None:
    with pytest.raises(BadInputError, match="django, pytest-log, sympy"):
        reader_for("nose")
    assert reader_for("sympy").name == "sympy"


def test_runner_styles_leave_the_workdir_usable(tmp_path: Path) -> None:
    assert (write_repo(tmp_path, "sympy") / "bin" / "test").is_file()


def test_a_test_reported_with_two_statuses_is_an_error() -> None:
    log = ("test_a ok\ntest_a F\ntest_b ok\n"
           "==== tests finished: 2 passed, 1 failed, in 0.01 seconds ====\n")
    assert reader_for("sympy").read(log) == {"test_a": "error", "test_b": "passed"}


def test_pytest_forged_summary_line_breaks_the_totals() -> None:
    log = ("=== short test summary info ===\nFAILED t.py::test_a - boom\nPASSED t.py::test_a\n"
           "=== 1 failed in 0.01s ===\n")
    with pytest.raises(ResultsError, match="passed"):
        reader_for("pytest-log").read(log)


def test_django_ids_of_both_python_forms_are_one() -> None:
    log = ("test_a (app.tests.T.test_a) ... ok\ntest_b (app.tests.T) ... FAIL\n"
           "FAIL: test_b (app.tests.T)\nRan 2 tests in 0.1s\n")
    assert reader_for("django").read(log) == {"test_a (app.tests.T)": "passed",
                                              "test_b (app.tests.T)": "failed"}


def test_django_failure_header_contradicting_a_pass_is_an_error() -> None:
    log = "test_a (app.tests.T) ... ok\nERROR: test_a (app.tests.T)\nRan 1 test in 0.1s\n"
    assert reader_for("django").read(log) == {"test_a (app.tests.T)": "error"}


SYMPY_WRAPPED = (
    "sympy/core/tests/test_basic.py[4] \n"
    "test_a ok\ntest_b F\ntest_c Slow w\ntest_d f\n[FAIL]\n\n"
    "________________________________________________________________________________\n"
    "_____________ sympy/core/tests/test_basic.py:test_b ______________\n"
    "AssertionError\n\n"
    " tests finished: 1 passed, 1 failed, 1 skipped, 1 expected to fail, \n"
    "1 exceptions, in 0.41 seconds \n"
    "DO *NOT* COMMIT!\n")


def test_sympy_totals_wrapped_over_two_lines_are_read() -> None:
    """Issue 35: sympy breaks its totals onto a second line past 80 columns; such a run
    (several kinds of outcome) read as no report and its reps as flips."""
    log = SYMPY_WRAPPED.replace("test_d f\n", "test_d f\ntest_e E\n")
    assert reader_for("sympy").read(log) == {"test_a": "passed", "test_b": "failed",
                                             "test_c": "skipped", "test_d": "xfailed",
                                             "test_e": "error"}


def test_sympy_totals_on_their_second_line_are_checked() -> None:
    # One exception claimed on the second line, none listed: not trusted.
    with pytest.raises(ResultsError, match="error"):
        reader_for("sympy").read(SYMPY_WRAPPED)


def test_sympy_totals_cut_before_their_time_are_no_totals() -> None:
    log = SYMPY_WRAPPED.replace("test_d f\n", "test_d f\ntest_e E\n").split("1 exceptions")[0]
    with pytest.raises(ResultsError, match="tests finished"):
        reader_for("sympy").read(log)


def test_sympy_short_totals_between_rules_are_read() -> None:
    log = "test_a ok\n" + " tests finished: 1 passed, in 0.01 seconds ".center(80, "=") + "\n"
    assert reader_for("sympy").read(log) == {"test_a": "passed"}


def test_a_sympy_test_file_that_fails_to_import_is_an_exception_naming_no_test() -> None:
    log = ("sympy/core/tests/test_a.py[2] \ntest_a ok\ntest_b ok\n[OK]\n"
           "sympy/core/tests/test_c.py[?]   Failed to import                          [FAIL]\n\n"
           "________________________________________________________________________________\n"
           "_______________________ sympy/core/tests/test_c.py _______________________\n"
           "ImportError: cannot import name 'gone'\n\n"
           " tests finished: 2 passed, 1 exceptions, in 0.20 seconds ".center(80, "=") + "\n"
           "DO *NOT* COMMIT!\n")
    assert reader_for("sympy").read(log) == {"test_a": "passed", "test_b": "passed"}
