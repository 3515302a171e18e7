"""Canaries: tests the grader adds to every graded run, named from a per-grade random nonce.

One must pass and one must fail with a message carrying the nonce. They go into the files that
hold the FAIL_TO_PASS tests (or into the hidden test files), so anything a patch aims
at those files, or at the report, hits them too; the patch was written before the nonce existed,
so it cannot single them out. The nonce is not part of the grade key: a re-grade draws a new one
and must reach the same outcome.
"""

from __future__ import annotations

import ast
import fnmatch
import secrets
from dataclasses import dataclass
from pathlib import PurePosixPath

from evaluator.grading._junit import FAILED, PASSED
from evaluator.pysource import parse

_TEST_GLOBS = ("test_*.py", "*_test.py", "tests.py", "test*.py")


def new_nonce() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Canaries:
    nonce: str
    files: tuple[str, ...]
    style: str = "pytest"  # "pytest" (a class and functions), "class" (Django), "functions" (sympy)

    @property
    def ok_tag(self) -> str:
        return "test_" + _word(self.nonce[:8])

    @property
    def fail_tag(self) -> str:
        return "test_" + _word(self.nonce[8:])

    @property
    def class_name(self) -> str:
        return "Test" + _word(self.nonce[4:12]).capitalize()

    @property
    def message(self) -> str:
        return self.nonce

    @property
    def per_file(self) -> int:
        """How many of each kind (must pass, must fail) one file gets."""
        return 2 if self.style == "pytest" else 1

    # Names end in a syllable per file: runners that report bare names (sympy's) must see the
    # canaries of two files as four tests, not two reported twice.
    def _class(self, i: int) -> str:
        n, rev, x = self.nonce, self.nonce[::-1], _word(format(i, "x"))
        return (f"import unittest\n\n\nclass {self.class_name}{x}(unittest.TestCase):\n"
                f"    def {self.ok_tag}{x}(self):\n        self.assertEqual({n!r}, {n!r})\n\n"
                f"    def {self.fail_tag}{x}(self):\n        self.assertEqual({n!r}, {rev!r})\n")

    def _functions(self, i: int) -> str:
        n, rev, x = self.nonce, self.nonce[::-1], _word(format(i, "x"))
        return (f"def {self.ok_tag}{x}():\n    assert {n!r} == {n!r}\n\n\n"
                f"def {self.fail_tag}{x}():\n    assert {n!r} == {rev!r}\n")

    def source(self, i: int = 0) -> bytes:
        """What is appended to a file the harness cannot edit before the run: a unittest class
        (pytest, unittest and Django's runner collect it) and/or plain functions (pytest,
        sympy's runner). pytest gets both kinds, so a patch cannot pass every test but the
        ones of one kind."""
        parts = {"pytest": [self._class(i), self._functions(i)], "class": [self._class(i)],
                 "functions": [self._functions(i)]}[self.style]
        return "".join(f"\n\n\n{p}" for p in parts).encode()

    def insert(self, text: bytes, i: int = 0) -> bytes:
        """A hidden test file with the canaries in it: the class at the end, the functions (for
        pytest) before a top-level statement drawn at random after the imports, so neither their
        kind nor their place in the file singles them out."""
        if self.style != "pytest":
            return text + self.source(i)
        try:
            body = parse(text).body
        except (SyntaxError, ValueError):
            return text + self.source(i)
        last_import = max((i for i, st in enumerate(body)
                           if isinstance(st, ast.Import | ast.ImportFrom)), default=-1)
        starts = [min([st.lineno, *(d.lineno for d in getattr(st, "decorator_list", []))])
                  for st in body[last_import + 1:]]
        lines = text.decode("utf-8", errors="surrogateescape").splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        at = secrets.choice([*starts, len(lines) + 1]) - 1
        lines[at:at] = [self._functions(i) + "\n\n"]
        out = "".join(lines) + f"\n\n\n{self._class(i)}"
        return out.encode("utf-8", errors="surrogateescape")

    def is_canary(self, test_id: str) -> bool:
        return self.ok_tag in test_id or self.fail_tag in test_id

    def check(self, tests: dict[str, str], messages: dict[str, str]) -> tuple[list[str], list[str]]:
        """(strong, weak) evidence. Strong: no honest run shows it (a canary that must fail
        passed, or failed without its message; one that must pass failed; more of them than
        were planted). Weak: canaries missing or not run, which a patch that breaks the import
        of a test module also causes honestly."""
        oks = {t: s for t, s in tests.items() if self.ok_tag in t}
        fails = {t: s for t, s in tests.items() if self.fail_tag in t}
        strong: list[str] = []
        weak: list[str] = []
        for t, s in sorted(fails.items()):
            if s == PASSED:
                strong.append(f"canary {t} must fail and passed")
            elif s == FAILED and self.message not in messages.get(t, ""):
                strong.append(f"canary {t} failed without the grade's nonce in its message")
            elif s != FAILED:
                weak.append(f"canary {t} is {s}")
        for t, s in sorted(oks.items()):
            if s == FAILED:
                strong.append(f"canary {t} must pass and failed")
            elif s != PASSED:
                weak.append(f"canary {t} is {s}")
        want = len(self.files) * self.per_file
        if len(oks) > want or len(fails) > want:
            strong.append(f"{len(oks) + len(fails)} canaries reported, {2 * want} planted")
        elif len(oks) < want or len(fails) < want:
            weak.append(f"{len(oks) + len(fails)} of {2 * want} canaries reported")
        return strong, weak


_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "so", "ta", "vi", "be", "do", "fu", "ga", "hi", "jo",
              "pe", "zu")


def _word(hexdigits: str) -> str:
    return "".join(_SYLLABLES[int(c, 16)] for c in hexdigits)


def plant(nonce: str, fail_to_pass: tuple[str, ...], hidden: list[str],
          style: str = "pytest") -> Canaries:
    """Where the canaries go: the files of the FAIL_TO_PASS node ids (they must be collected for
    the task to be solvable), else the hidden test files."""
    files = sorted({t.split("::", 1)[0] for t in fail_to_pass
                    if "::" in t and t.split("::", 1)[0].endswith(".py")})
    if not files:
        files = sorted(h for h in hidden
                       if any(fnmatch.fnmatch(PurePosixPath(h).name, g) for g in _TEST_GLOBS))
    return Canaries(nonce, tuple(files), style)
