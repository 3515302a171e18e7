"""Which skipped PASS_TO_PASS tests SWE-bench's parsers keep (issue 35): only those whose skip
the log names; real output of pytest -rA, Django's runner and sympy's bin/test."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.grading import official_keeps
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
