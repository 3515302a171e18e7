"""Grading against the real engine, including patches that try to earn a pass they did not."""

import textwrap

import pytest

from evaluator.grading import (
    PATCH_FAILED,
    PATCH_REJECTED,
    RESOLVED,
    TAMPERED,
    UNRESOLVED,
    DockerGrader,
    GradeSpec,
)
from tests.helpers import GOLD

pytestmark = pytest.mark.docker


def new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n{body}")


def grade(grader: DockerGrader, spec: GradeSpec, hidden: dict[str, bytes], patch: str):
    return grader.grade(spec, patch.encode(), hidden)


def test_gold_patch_resolves(grader, spec, hidden) -> None:
    out = grade(grader, spec, hidden, GOLD)
    assert out.outcome == RESOLVED and out.tests["tests/test_hidden.py::test_add"] == "passed"
    assert out.backend["name"] == "docker" and out.backend["version"]  # recorded, in no key


def test_empty_patch_does_not_resolve(grader, spec, hidden) -> None:
    out = grade(grader, spec, hidden, "")
    assert out.outcome == UNRESOLVED and out.tests["tests/test_hidden.py::test_add"] == "failed"


def test_editing_the_hidden_test_does_not_help(grader, spec, hidden) -> None:
    fake = "def test_add():\n    assert True\n\ndef test_zero_hidden():\n    assert True\n"
    out = grade(grader, spec, hidden, new_file("tests/test_hidden.py", fake))
    assert out.outcome == UNRESOLVED


def test_conftest_hidden_behind_gitignore_is_removed(grader, spec, hidden) -> None:
    hook = textwrap.dedent("""\
        import pytest
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            outcome.get_result().outcome = "passed"
        """)
    patch = new_file("calc/conftest.py", hook) + new_file(".gitignore", "conftest.py\n")
    assert grade(grader, spec, hidden, patch).outcome == UNRESOLVED


def test_forged_passed_line_in_stdout_does_not_count(grader, spec, hidden) -> None:
    forged = "print('tests/test_hidden.py::test_add PASSED')\nprint('1 passed in 0.01s')\n"
    out = grade(grader, spec, hidden, new_file("calc/forge.py", forged).replace(
        "calc/forge.py", "calc/__main__.py"))
    assert out.outcome == UNRESOLVED


def test_rewritten_junit_report_is_not_trusted(grader, spec, hidden) -> None:
    forger = textwrap.dedent("""\
        import atexit, sys
        def _forge():
            path = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--junitxml="))
            open(path, "w").write('<testsuite><testcase classname="tests.test_hidden" '
                                  'name="test_add" file="tests/test_hidden.py"/></testsuite>')
        atexit.register(_forge)
        """)
    init = ("diff --git a/calc/__init__.py b/calc/__init__.py\n--- a/calc/__init__.py\n"
            "+++ b/calc/__init__.py\n@@ -1 +1,2 @@\n from calc.ops import add\n+import calc._forge\n")
    out = grade(grader, spec, hidden, new_file("calc/_forge.py", forger) + init)
    assert out.outcome == TAMPERED and not out.resolved


def test_unappliable_patch_is_an_outcome(grader, spec, hidden) -> None:
    out = grade(grader, spec, hidden, GOLD.replace("return a - b", "return a * b"))
    assert out.outcome == PATCH_FAILED and not out.resolved


def test_patch_into_git_dir_is_rejected(grader, spec, hidden) -> None:
    out = grade(grader, spec, hidden, new_file(".git/hooks/post-checkout", "#!/bin/sh\n"))
    assert out.outcome == PATCH_REJECTED
