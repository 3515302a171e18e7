"""Canaries: tests the grader adds to every graded run, named from a per-grade random nonce.

One must pass and one must fail with a message carrying the nonce. They are appended to the
files that hold the FAIL_TO_PASS tests (or to the hidden test files), so anything a patch aims
at those files, or at the report, hits them too; the patch was written before the nonce existed,
so it cannot single them out. The nonce is not part of the grade key: a re-grade draws a new one
and must reach the same outcome.
"""

from __future__ import annotations

import fnmatch
import secrets
from dataclasses import dataclass
from pathlib import PurePosixPath

from evaluator.grading._junit import FAILED, PASSED

_TEST_GLOBS = ("test_*.py", "*_test.py", "tests.py", "test*.py")


def new_nonce() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Canaries:
    nonce: str
    files: tuple[str, ...]
    style: str = "class"  # "class" (pytest, unittest, Django) or "functions" (sympy's runner)

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

    def source(self) -> bytes:
        """Appended to each file: a unittest class (pytest, unittest and Django's runner all
        collect it), or for runners that collect only functions, two functions. Names and
        text look like any test's, so a patch cannot pass everything but them."""
        n, rev = self.nonce, self.nonce[::-1]
        if self.style == "functions":
            return (f"\n\n\ndef {self.ok_tag}():\n    assert {n!r} == {n!r}\n\n\n"
                    f"def {self.fail_tag}():\n    raise AssertionError({n!r} + ' != ' + {rev!r})\n"
                    ).encode()
        return (
            f"\n\n\nimport unittest\n\n\nclass {self.class_name}(unittest.TestCase):\n"
            f"    def {self.ok_tag}(self):\n        self.assertEqual({n!r}, {n!r})\n\n"
            f"    def {self.fail_tag}(self):\n        self.assertEqual({n!r}, {rev!r})\n"
        ).encode()

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
        want = len(self.files)
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
          style: str = "class") -> Canaries:
    """Where the canaries go: the files of the FAIL_TO_PASS node ids (they must be collected for
    the task to be solvable), else the hidden test files."""
    files = sorted({t.split("::", 1)[0] for t in fail_to_pass
                    if "::" in t and t.split("::", 1)[0].endswith(".py")})
    if not files:
        files = sorted(h for h in hidden
                       if any(fnmatch.fnmatch(PurePosixPath(h).name, g) for g in _TEST_GLOBS))
    return Canaries(nonce, tuple(files), style)
