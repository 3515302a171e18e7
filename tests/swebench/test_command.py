from __future__ import annotations

import pytest

from evaluator.swebench import Unmapped, command_for, results_for
from tests.swebench.fixtures import EVAL_SCRIPT


def test_eval_script_test_lines_get_a_junit_report_and_keep_the_environment() -> None:
    script = EVAL_SCRIPT.format(sha="abc", patch="diff --git a/x b/x")
    cmd = command_for({"eval_script": script, "log_parser": "parse_log_pytest"}, [])
    assert cmd.results == "junit"
    assert cmd.activate == ". /opt/miniconda3/bin/activate && conda activate testbed"
    assert cmd.test_command == (
        "python -m pytest --junitxml={junit_xml} -rA -p no:cacheprovider tests/test_calc.py "
        "tests/test_more.py")
    assert cmd.dropped == ["python3 -c 'print(\"a setup step\")'"]


def test_rows_without_a_script_run_their_repositorys_runner() -> None:
    django = command_for({"repo": "django/django"}, ["tests/auth_tests/test_views.py"], setup="")
    assert django.test_command == ("./tests/runtests.py --verbosity 2 --settings=test_sqlite "
                                   "--parallel 1 auth_tests.test_views")
    assert django.results == "django"
    sympy = command_for({"repo": "sympy/sympy"}, ["sympy/a/tests/test_b.py", "data.json"], "s")
    assert sympy.test_command == "bin/test -C --verbose sympy/a/tests/test_b.py"
    assert sympy.activate == "s" and django.activate == ""


def test_parsers_without_a_reader_are_unmapped() -> None:
    assert results_for({"log_parser": "parse_log_astropy"}) == "junit"
    with pytest.raises(Unmapped, match="parse_log_jest"):
        results_for({"log_parser": "parse_log_jest"})
