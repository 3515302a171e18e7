"""Canaries: twins of the file's own required tests, what they look like and where they go."""

import ast

from evaluator.grading._canary import plant, target_files

SRC = b'''"""doc"""
import os

import pytest


@pytest.mark.parametrize("a,b,want", [(1, 2, 3), (2, 2, 4)])
def test_sum_pairs(a, b, want):
    assert a + b == want


def test_join_words():
    words = ["a", "b"]
    assert "-".join(words) == "a-b"


def test_only_sometimes():
    if os.name == "nt":
        assert 1 + 1 == 2


class TestPaths:
    def test_sep_is_slash(self):
        assert os.sep == "/"
'''
F2P = ("t.py::test_join_words", "t.py::test_sum_pairs[1-2-3]", "t.py::TestPaths::test_sep_is_slash")
P2P = ("t.py::test_only_sometimes",)


def planted(nonce: str = "0123456789abcdef", src: bytes = SRC, f2p=F2P, p2p=P2P, style="pytest"):
    return plant(nonce, f2p, p2p, {"t.py": src}, style)


def defs(text: bytes) -> dict[str, str]:
    tree = ast.parse(text)
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            out[node.name] = ast.dump(ast.Module(body=node.body, type_ignores=[]))
    return out


def test_twins_are_copies_of_required_tests_in_the_same_file() -> None:
    c = planted()
    assert c.twins and set(c.files) == {"t.py"}
    before, after = defs(SRC), defs(c.files["t.py"])
    for tw in c.twins:
        assert tw.source in (*F2P, *P2P) and tw.id.startswith("t.py::")
    assert {k: v for k, v in after.items() if k in before} == before, "the file's own tests stay"


def test_a_twin_that_differs_changes_one_value_and_an_exact_copy_none() -> None:
    for nonce in ("0" * 16, "1" * 16, "abcdef0123456789"):
        c = planted(nonce)
        tree = ast.parse(c.files["t.py"])
        for tw in c.twins:
            name = tw.id.split("::")[-1].split("[")[0]
            src = tw.source.split("::")[-1].split("[")[0]
            twin_fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
            src_fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == src)
            a = [ast.dump(n) for n in ast.walk(twin_fn) if isinstance(n, ast.Constant)]
            b = [ast.dump(n) for n in ast.walk(src_fn) if isinstance(n, ast.Constant)]
            assert sum(x != y for x, y in zip(a, b, strict=True)) == (1 if tw.differs else 0)


def test_no_nonce_and_no_new_imports_in_the_file() -> None:
    c = planted("feedfacecafebeef")
    text = c.files["t.py"].decode()
    assert "feedface" not in text and "beef" not in text
    assert text.count("import") == SRC.decode().count("import")


def test_names_come_from_the_files_own_words_and_are_new() -> None:
    c = planted()
    idents = {getattr(n, a) for n in ast.walk(ast.parse(SRC)) for a in ("id", "attr", "arg", "name")
              if isinstance(getattr(n, a, None), str)}
    words = {w.lower() for i in idents for w in i.split("_")} | {"paths"}
    for tw in c.twins:
        name = tw.id.split("::")[-1].split("[")[0]
        assert name.startswith("test_") and name not in defs(SRC)
        assert set(name.removeprefix("test_").split("_")) <= words, name


def test_a_method_twin_stays_in_its_class_and_places_vary() -> None:
    firsts = set()
    for i in range(12):
        c = planted(format(i, "016x"))
        tree = ast.parse(c.files["t.py"])
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
        for tw in c.twins:
            if "::TestPaths::" in tw.id:
                assert tw.id.split("::")[-1] in [getattr(f, "name", "") for f in cls.body]
        firsts.add(next(n.name for n in tree.body if isinstance(n, ast.FunctionDef)))
    assert len(firsts) > 1, "twins do not always sit in the same place"


def test_a_parametrized_case_whose_value_changed_gets_its_own_id() -> None:
    seen = set()
    for i in range(16):
        for tw in planted(format(i, "016x")).twins:
            if "sum_pairs" in tw.source and tw.differs:
                seen.add(tw.id.split("[")[1])
    assert seen and seen <= {"1-2-3]", "1-2-1]", "1-2-2]", "1-2-4]", "1-2-5]", "1-1-3]",
                             "0-2-3]", "2-2-3]", "3-2-3]", "1-3-3]", "1-4-3]", "1-0-3]"}


def test_an_assertion_that_may_not_run_is_never_changed() -> None:
    for i in range(12):
        for tw in planted(format(i, "016x")).twins:
            assert not (tw.differs and tw.source == "t.py::test_only_sometimes")


def test_same_nonce_same_twins() -> None:
    assert planted("0" * 16) == planted("0" * 16) and planted("0" * 16) != planted("1" * 16)


def test_a_file_that_does_not_parse_gets_no_twins() -> None:
    c = planted(src=b"def test_x(:\n")
    assert c.twins == () and c.files == {}


def test_django_and_sympy_ids() -> None:
    src = (b"import unittest\n\n\nclass T(unittest.TestCase):\n    def test_x(self):\n"
           b"        self.assertEqual(len('ab'), 2)\n")
    c = planted(src=src, f2p=("test_x (app.tests.T)",), p2p=(), style="class")
    assert c.twins and all(t.id.endswith(" (app.tests.T)") for t in c.twins)
    c = planted(src=b"def test_y():\n    assert len('ab') == 2\n", f2p=("test_y",), p2p=(),
                style="functions")
    assert c.twins and all(t.id.isidentifier() for t in c.twins)


def test_targets_are_the_files_of_fail_to_pass_ids_else_hidden_test_files() -> None:
    assert target_files(("tests/test_x.py::T::t[a b]",), ["tests/test_y.py"], "pytest") == [
        "tests/test_x.py"]
    assert target_files(("test_x (app.tests.T)",), ["app/tests.py", "app/data.py"], "class") == [
        "app/tests.py"]
