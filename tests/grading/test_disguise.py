"""The disguise: every test of a required file under a fresh name, the twins among them, and the
mapping back held by the harness alone."""

import ast
import re

from evaluator.grading._disguise import disguise, parse_id, target_files
from tests.grading.support_disguise import F2P, P2P, SRC, disguised, made, names


def test_no_published_name_is_left_in_the_file() -> None:
    d = disguised()
    text = d.files["t.py"].decode()
    for old in names(SRC):
        assert not re.search(rf"\b{old}\b", text), old
    assert text.count("import") == SRC.decode().count("import")
    assert "0123456789abcdef" not in text


def test_every_required_id_goes_to_the_run_and_comes_back() -> None:
    d = disguised()
    run = {t: d.run_id(t) for t in (*F2P, *P2P)}
    assert all(r != t for t, r in run.items())
    assert {d.original(r) for r in run.values()} == set(run)
    assert run["t.py::test_sum_pairs[1-2-3]"].split("[")[1] != "1-2-3]"  # fresh case ids too


def test_the_run_s_report_comes_back_under_the_original_ids_without_the_twins() -> None:
    d = disguised()
    report = {d.run_id(t): "passed" for t in (*F2P, *P2P)}
    twin_ids = [tw.at + (f"[{tw.case}]" if tw.case else "") for tw in d.twins]
    report.update(dict.fromkeys(twin_ids, "failed"))
    original, twins = d.back(report)
    assert original == dict.fromkeys((*F2P, *P2P), "passed")
    assert set(twins) == {tw.candidate.key for tw in d.twins}
    assert all(v == ["failed"] for v in twins.values())


def test_twins_are_tests_of_the_file_with_one_value_changed() -> None:
    d = disguised()
    tree = ast.parse(d.files["t.py"])
    by_name = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert d.twins
    for tw in d.twins:
        twin = by_name[tw.at.split("::")[-1]]
        source = by_name[d.run_id(tw.candidate.source[0]).split("::")[-1].split("[")[0]]
        a, b = _values(twin), _values(source)
        assert sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _values(fn: ast.FunctionDef) -> list[str]:
    """Its constants, but for the case ids (each test's are fresh)."""
    for d in fn.decorator_list:
        if isinstance(d, ast.Call):
            d.keywords = [k for k in d.keywords if k.arg != "ids"]
    return [ast.dump(n) for n in ast.walk(fn) if isinstance(n, ast.Constant)]


def test_twin_names_and_places_vary_with_the_nonce_and_stay_with_it() -> None:
    first = [disguised(format(i, "016x")).files["t.py"] for i in range(8)]
    assert len(set(first)) == 8
    assert disguised("0" * 16).files == disguised("0" * 16).files
    orders = {tuple(n.name for n in ast.parse(t).body if isinstance(n, ast.FunctionDef))
              for t in first}
    assert len(orders) > 1


def test_a_method_stays_in_its_class_and_its_calls_follow_its_name() -> None:
    d = disguised()
    cls = next(n for n in ast.parse(d.files["t.py"]).body if isinstance(n, ast.ClassDef))
    methods = {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
    run = d.run_id("t.py::TestPaths::test_sep_is_slash").split("::")[-1]
    assert run in methods and f"self.{run}()" in d.files["t.py"].decode()


def test_an_input_that_is_also_the_answer_never_makes_a_twin() -> None:
    """The issue's false `tampered`: a parametrized value that is the test's input and its
    expected value at once passes under any real fix."""
    assert not any(c.name == "test_identity" and c.case is not None for c in made())


def test_an_assertion_that_may_not_run_is_never_changed() -> None:
    assert not any(c.name == "test_only_sometimes" for c in made())


def test_candidates_are_made_from_the_text_alone() -> None:
    assert made() == made() and all(c.f2p for c in made()[:2])


def test_a_file_naming_its_tests_in_strings_says_so() -> None:
    src = SRC + b'\n\ndef test_names():\n    assert "test_join_words" in dir()\n'
    d = disguise("n" * 16, {"t.py": src}, F2P, "pytest")
    assert any("test_join_words" in p for p in d.partial)


def test_cases_made_at_run_time_keep_their_published_ids_and_say_so() -> None:
    src = b"import pytest\nCASES = [1, 2]\n\n\n@pytest.mark.parametrize('x', CASES)\n" \
          b"def test_x(x):\n    assert x\n"
    d = disguise("n" * 16, {"t.py": src}, ("t.py::test_x[1]",), "pytest")
    assert d.run_id("t.py::test_x[1]").endswith("[1]") and d.partial


def test_without_renaming_the_run_uses_the_published_ids() -> None:
    d = disguised(twins=False, rename=False)
    assert d.files["t.py"] == SRC and d.run_id(F2P[0]) == F2P[0]


def test_django_and_sympy_ids() -> None:
    src = (b"import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n"
           b"        self.assertEqual(len('ab'), 2)\n")
    d = disguise("n" * 16, {"app/tests.py": src}, ("test_x (app.tests.T)",), "class")
    run = d.run_id("test_x (app.tests.T)")
    assert parse_id(run, "class") and "test_x" not in run and " (app.tests." in run
    assert d.original(run) == "test_x (app.tests.T)"
    d = disguise("n" * 16, {"t.py": b"def test_y():\n    assert len('ab') == 2\n"}, ("test_y",),
                 "functions")
    assert d.run_id("test_y").isidentifier() and d.original(d.run_id("test_y")) == "test_y"


def test_targets_are_the_files_of_the_required_ids_else_hidden_test_files() -> None:
    assert target_files(("tests/test_x.py::T::t[a b]",), ["tests/test_y.py"], "pytest") == [
        "tests/test_x.py"]
    assert target_files(("test_x (app.tests.T)",), ["app/tests.py", "app/data.py"], "class") == [
        "app/tests.py"]
