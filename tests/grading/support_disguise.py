"""A test file the disguise and the twins are tried on, and its required ids."""

from __future__ import annotations

import ast

from evaluator.grading._disguise import Disguise, disguise
from evaluator.grading._twins import Candidate, candidates

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


@pytest.mark.parametrize("x", [1, 2])
def test_identity(x):
    assert abs(x) == x


class TestPaths:
    def test_sep_is_slash(self):
        assert os.sep == "/"

    def test_calls_another(self):
        self.test_sep_is_slash()
'''
F2P = ("t.py::test_join_words", "t.py::test_sum_pairs[1-2-3]",
       "t.py::TestPaths::test_sep_is_slash", "t.py::test_identity[1]")
P2P = ("t.py::test_only_sometimes",)


def groups(f2p: tuple[str, ...] = F2P, p2p: tuple[str, ...] = P2P) -> list:
    out: dict = {}
    for t in (*f2p, *p2p):
        _, *parts = t.split("::")
        name, _, case = parts[-1].partition("[")
        key = (tuple(parts[:-1]), name)
        cases, was = out.get(key, ([], False))
        out[key] = ([*cases, (f"[{case}" if case else "", t)], was or t in f2p)
    return [(k[0], k[1], v[0], v[1]) for k, v in out.items()]


def made(src: bytes = SRC) -> list[Candidate]:
    return candidates("t.py", src, groups())


def disguised(nonce: str = "0123456789abcdef", src: bytes = SRC, twins: bool = True,
              rename: bool = True) -> Disguise:
    return disguise(nonce, {"t.py": src}, (*F2P, *P2P), "pytest",
                    made(src) if twins else (), rename=rename)


def names(text: bytes) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.FunctionDef | ast.ClassDef)}
