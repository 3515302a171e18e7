"""Which skipped PASS_TO_PASS tests SWE-bench's parsers keep (issue 35): only those whose skip
the log names; real output of pytest -rA, Django's runner and sympy's bin/test."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from evaluator.grading import GradeOutcome, GradeRecord, official_keeps
from evaluator.grading._disguise import disguise
from evaluator.grading._grader import _kept
from tests.grading.runners import run_output, write_repo


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = {}
    for style in ("pytest-log", "django", "sympy"):
        root = write_repo(tmp_path_factory.mktemp(style), style)
        out[style] = run_output(root, style)
    return out


def test_pytest_folds_skips_without_ids_so_only_the_xfail_is_kept(outputs: dict[str, str]
                                                                   ) -> None:
    ids = ["tests/test_calc.py::test_skipped", "tests/test_calc.py::test_xfails"]
    assert "SKIPPED [1] tests/test_calc.py" in outputs["pytest-log"]
    for results in ("junit", "pytest-log"):
        assert official_keeps(results, outputs["pytest-log"], ids) == (
            "tests/test_calc.py::test_xfails",)


def test_django_names_its_skips_but_not_its_expected_failures(outputs: dict[str, str]) -> None:
    ids = ["test_skipped (calc.tests.CalcTests)", "test_xfails (calc.tests.CalcTests)"]
    assert official_keeps("django", outputs["django"], ids) == (
        "test_skipped (calc.tests.CalcTests)",)


def test_sympy_keeps_no_skip_and_no_xfail(outputs: dict[str, str]) -> None:
    assert official_keeps("sympy", outputs["sympy"], ["test_skipped", "test_xfails"]) == ()


def test_an_unfolded_skip_names_its_test() -> None:
    out = ("===== short test summary info =====\nSKIPPED tests/a.py::test_x - no numpy\n"
           "SKIPPED [2] tests/a.py:9: no scipy\n\x1b[33mXFAIL\x1b[0m tests/a.py::test_y - known\n")
    assert official_keeps("junit", out, ["tests/a.py::test_x", "tests/a.py::test_y",
                                         "tests/a.py::test_z"]) == ("tests/a.py::test_x",
                                                                    "tests/a.py::test_y")


def test_the_line_printed_last_decides(tmp_path: Path) -> None:
    out = "SKIPPED tests/a.py::test_x - why\nFAILED tests/a.py::test_x - boom\n"
    assert official_keeps("pytest-log", out, ["tests/a.py::test_x"]) == ()


def test_a_grade_under_fresh_names_keeps_the_published_id_of_the_xfail_it_ran(
        tmp_path: Path) -> None:
    """The run prints an xfail under this grade's fresh name, never the published one: what is
    kept is read there by the grader, mapped back, and recorded (`kept`), so what reads the
    grade later (the export, the agreement table) does not re-read the output for the
    published ids (the srclay-pad disagreement with the official harness)."""
    root = write_repo(tmp_path, "pytest-log")
    p2p = ("tests/test_calc.py::test_xfails", "tests/test_calc.py::test_skipped")
    test_file = root / "tests/test_calc.py"
    d = disguise("5eed5eed5eed5eed", {"tests/test_calc.py": test_file.read_bytes()}, p2p,
                 "pytest")
    test_file.write_bytes(d.files["tests/test_calc.py"])
    out = run_output(root, "pytest-log")
    assert f"XFAIL {d.run_id(p2p[0])} - known" in out and p2p[0] not in out
    assert official_keeps("pytest-log", out, p2p) == ()  # what the export read before
    spec = SimpleNamespace(pass_to_pass=p2p, pass_to_pass_rule="swebench", results="pytest-log")
    kept = _kept(spec, d, out)  # type: ignore[arg-type]
    assert kept == (p2p[0],)
    fields = GradeOutcome("resolved", tests=dict.fromkeys(p2p, "skipped"), kept=kept).to_record()
    grade = GradeRecord(**fields, status="resolved", task_set="s", task_id="t", subject="gold",
                        patch="0" * 64, image="i", grader_version="g", lock_version="l")
    assert grade.keeps("pytest-log", p2p, lambda: out) == (p2p[0],)
    # A grade made before `kept` was recorded ran under the published names: its output says.
    older = grade.model_copy(update={"kept": None})
    assert older.keeps("pytest-log", p2p, lambda: out.replace(d.run_id(p2p[0]), p2p[0])) == (
        p2p[0],)
