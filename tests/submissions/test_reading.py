"""Their published output, read: the part between SWE-bench's markers, by our reader for the
task's runner, and the lines about one test (real pytest -rA and sympy-style output)."""

from __future__ import annotations

from pathlib import Path

from evaluator.submissions import between_markers, excerpt, read_with_ours
from evaluator.submissions._reading import status_of
from tests.grading.runners import run_output, write_repo
from tests.submissions.published import as_test_output, pytest_outputs


def test_the_markers_cut_the_eval_scripts_trace_away(tmp_path: Path) -> None:
    out = pytest_outputs(tmp_path, {"a": {"fail": ("test_add",)}})["a"]
    published = as_test_output(out)
    assert between_markers(published) == "+ pytest -rA tests\n" + out  # set -x: the command
    statuses, why = read_with_ours(published, "junit")
    assert why == "" and statuses is not None
    assert statuses["tests/test_hidden.py::test_add"] == "failed"
    assert status_of(statuses, "tests/test_visible.py::test_zero", "junit") == "passed"
    assert status_of(statuses, "tests/test_visible.py::test_nothing", "junit") == "missing"


def test_an_output_our_reader_cannot_trust_says_why() -> None:
    statuses, why = read_with_ours("+ : '>>>>> Start Test Output'\nKilled\n", "junit")
    assert statuses is None and "no pytest totals line" in why


def test_the_lines_about_one_test_and_its_failure_section(tmp_path: Path) -> None:
    out = pytest_outputs(tmp_path, {"a": {"needs": ("test_zero",)}})["a"]
    lines = excerpt(out, "tests/test_visible.py::test_zero").splitlines()
    assert lines[0].strip("_ ") == "test_zero"
    assert any(ln.startswith("E ") and "ModuleNotFoundError" in ln for ln in lines)
    assert lines[-1].startswith("FAILED tests/test_visible.py::test_zero")
    assert "test_zero_hidden" not in "\n".join(lines)  # a name is a whole word


def test_a_sympy_run_is_read_by_its_own_reader(tmp_path: Path) -> None:
    out = run_output(write_repo(tmp_path, "sympy"), "sympy")  # totals over two lines
    statuses, why = read_with_ours(out, "sympy")
    assert why == "" and statuses is not None and statuses["test_fails"] == "failed"
    assert "test_fails F" in excerpt(out, "test_fails")
