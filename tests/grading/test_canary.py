"""Canaries: where they go and what they look like."""

import ast

from evaluator.grading._canary import Canaries, plant

SRC = (b'"""doc"""\nimport os\n\n\n@dec\ndef test_a():\n    pass\n\n\n'
       b"class TestB:\n    def test_c(self):\n        pass\n")


def test_inserted_canaries_parse_and_sit_after_the_imports() -> None:
    c = Canaries("0123456789abcdef", ("t.py",))
    for _ in range(20):
        out = ast.parse(c.insert(SRC))
        names = [getattr(n, "name", "") for n in out.body]
        assert names.index(c.ok_tag + "ka") > 1 and names[-1] == c.class_name + "ka"
        test_a = next(n for n in out.body if getattr(n, "name", "") == "test_a")
        assert test_a.decorator_list, "a decorator stays with its function"


def test_each_file_gets_its_own_names_for_runners_that_report_bare_names() -> None:
    c = Canaries("0123456789abcdef", ("a.py", "b.py"), style="functions")
    assert c.source(0) != c.source(1) and c.ok_tag in c.source(1).decode()


def test_a_file_that_does_not_parse_gets_them_appended() -> None:
    c = Canaries("0123456789abcdef", ("t.py",))
    assert c.insert(b"def broken(:\n").startswith(b"def broken(:\n")


def test_nothing_in_their_text_names_the_grader() -> None:
    text = Canaries("0123456789abcdef", ("t.py",)).source().decode().lower()
    assert not any(w in text for w in ("canary", "evaluator", "grade", "nonce"))


def test_targets_are_the_files_of_fail_to_pass_ids_else_hidden_test_files() -> None:
    assert plant("0" * 16, ("tests/test_x.py::T::t[a b]",), ["tests/test_y.py"]).files == (
        "tests/test_x.py",)
    assert plant("0" * 16, ("test_x (app.tests.T)",), ["app/tests.py", "app/data.py"]).files == (
        "app/tests.py",)
