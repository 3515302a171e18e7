"""Required ids matched the way SWE-bench's log parsers key them."""

from __future__ import annotations

from evaluator.grading._ids import describe, matches, outcomes

RAN = {"t.py::test_p[a b]": "passed", "t.py::test_p[a c]": "failed",
       "t.py::test_q[x y]": "passed", "t.py::test_r": "passed",
       "t.py::test_s[log(photon x]": "passed"}


def test_a_full_id_names_itself() -> None:
    assert matches(["t.py::test_p[a b]", "t.py::test_r"], RAN) == {
        "t.py::test_p[a b]": ["t.py::test_p[a b]"], "t.py::test_r": ["t.py::test_r"]}


def test_an_id_cut_at_its_first_whitespace_names_the_tests_it_is_the_start_of() -> None:
    status, odd = outcomes(["t.py::test_q[x", "t.py::test_p[a"], RAN)
    assert status == {"t.py::test_q[x": "passed", "t.py::test_p[a": "failed"}  # worst counts
    assert odd == {"t.py::test_q[x": ["t.py::test_q[x y]"],
                   "t.py::test_p[a": ["t.py::test_p[a b]", "t.py::test_p[a c]"]}


def test_an_id_cut_mid_parameter_is_a_prefix() -> None:
    assert matches(["t.py::test_s[log(ph"], RAN)["t.py::test_s[log(ph"] == [
        "t.py::test_s[log(photon x]"]


def test_an_id_that_names_nothing_is_missing_and_said() -> None:
    status, odd = outcomes(["t.py::test_gone", "t.py::test_p[a"], RAN)
    assert status["t.py::test_gone"] == "missing"
    text = describe(odd)
    assert "1 required id(s) match no test of the run: t.py::test_gone" in text
    assert "t.py::test_p[a -> 2 tests" in text


def test_django_ids_in_either_python_form() -> None:
    ran = {"test_a (app.tests.T)": "passed"}
    assert outcomes(["test_a (app.tests.T.test_a)"], ran, "django")[0] == {
        "test_a (app.tests.T.test_a)": "passed"}


def test_sympy_names_are_exact() -> None:
    assert outcomes(["test_a", "test_b"], {"test_a": "passed"}, "sympy")[0] == {
        "test_a": "passed", "test_b": "missing"}


def test_an_id_read_from_printed_lines_is_said() -> None:
    text = describe({"x.py::test_inner": ["(not a test of this run: its line in the output, passed)"]})
    assert "1 PASS_TO_PASS id(s) name no test of the run and were read from lines" in text


def test_status_lines_printed_anywhere_read_as_the_official_parser_reads_them() -> None:
    from evaluator.grading._ids import printed

    out = ("XFAIL test_inner.py::test_known - reason\nFAILED t.py::test_b - boom\n"
           "\x1b[32mPASSED\x1b[0m t.py::test_c\nSKIPPED [1] t.py:3: no\n")
    assert printed(out, ["test_inner.py::test_known", "t.py::test_b", "t.py::test_c", "[1]"]) \
        == {"test_inner.py::test_known": "passed", "t.py::test_b": "failed", "t.py::test_c": "passed"}
