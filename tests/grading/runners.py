"""Small repositories of our own in the three SWE-bench runner styles, and their real output.

`pytest` is real pytest; the Django style is a `tests/runtests.py` over unittest's verbose runner
(what Django's own runner prints at --verbosity 2); the sympy style is a `bin/test` that prints
what sympy's reporter prints with --verbose. Each suite has a passing, a failing, an erroring and
a skipped test, and a test that prints forged status lines.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

FORGED = ("PASSED tests/test_calc.py::test_fails\nSKIPPED [1] x.py:1: forged\n"
          "test_fails (calc.tests.CalcTests) ... ok\ntest_fails ok\n")

PYTEST_FILES = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": textwrap.dedent(f"""\
        import pytest
        from calc import add

        def test_passes():
            print({FORGED!r})
            assert add(0, 0) == 0

        def test_fails():
            assert add(2, 3) == 5

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture")

        def test_errors(broken):
            pass

        @pytest.mark.skip(reason="not here")
        def test_skipped():
            pass

        @pytest.mark.xfail(reason="known")
        def test_xfails():
            assert False

        @pytest.mark.parametrize("a,b", [(1, 1), (2, 2)])
        def test_param(a, b):
            assert a == b
        """),
}
PYTEST_CMD = "python3 -m pytest -rA -p no:cacheprovider tests"

DJANGO_FILES = {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a - b\n",
    "calc/tests.py": textwrap.dedent(f"""\
        import sys
        import unittest
        from calc.ops import add

        class CalcTests(unittest.TestCase):
            def test_passes(self):
                sys.stderr.write({FORGED!r})
                self.assertEqual(add(0, 0), 0)

            def test_fails(self):
                self.assertEqual(add(2, 3), 5)

            def test_errors(self):
                raise RuntimeError("boom")

            @unittest.skip("not here")
            def test_skipped(self):
                pass

            @unittest.expectedFailure
            def test_xfails(self):
                self.assertTrue(False)
        """),
    "tests/runtests.py": textwrap.dedent("""\
        import argparse, os, sys, unittest
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        p = argparse.ArgumentParser()
        p.add_argument("labels", nargs="*")
        p.add_argument("--verbosity", type=int, default=1)
        p.add_argument("--settings")
        p.add_argument("--parallel")
        a = p.parse_args()
        suite = unittest.defaultTestLoader.loadTestsFromNames(a.labels or ["calc.tests"])
        r = unittest.TextTestRunner(verbosity=a.verbosity).run(suite)
        sys.exit(0 if r.wasSuccessful() else 1)
        """),
}
DJANGO_CMD = "python3 tests/runtests.py --verbosity 2 calc.tests"

SYMPY_FILES = {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a - b\n",
    "calc/tests/__init__.py": "",
    "calc/tests/test_ops.py": textwrap.dedent(f"""\
        import sys
        from calc.ops import add
        from bin_test_support import SKIP, XFAIL

        def test_passes():
            sys.stdout.write({FORGED!r})
            assert add(0, 0) == 0

        def test_fails():
            assert add(2, 3) == 5

        def test_errors():
            raise RuntimeError("boom")

        def test_skipped():
            raise SKIP("not here")

        @XFAIL
        def test_xfails():
            assert False
        """),
    "bin_test_support.py": textwrap.dedent("""\
        import functools

        class SKIP(Exception):
            pass

        class XFail(Exception):
            pass

        def XFAIL(f):
            @functools.wraps(f)
            def run():
                try:
                    f()
                except Exception:
                    raise XFail()
                raise AssertionError("XPASS")
            return run
        """),
    "bin/test": textwrap.dedent("""\
        #!/usr/bin/env python3
        # Prints what sympy's reporter prints with --verbose (bin/test -C --verbose).
        import importlib, os, sys, time, traceback
        sys.path.insert(0, os.getcwd())
        from bin_test_support import SKIP, XFail
        files = [a for a in sys.argv[1:] if not a.startswith("-")] or ["calc/tests/test_ops.py"]
        print("=" * 30 + " test process starts " + "=" * 30)
        print("executable:         %s" % sys.executable)
        counts = {"passed": 0, "failed": 0, "exceptions": 0, "skipped": 0, "xfail": 0}
        failures, t0 = [], time.time()
        for path in files:
            mod = importlib.import_module(path[:-3].replace("/", "."))
            tests = [getattr(mod, n) for n in sorted(dir(mod)) if n.startswith("test_")]
            sys.stdout.write("%s[%d] " % (path, len(tests)))
            bad = False
            for f in tests:
                sys.stdout.write("\\n" + f.__name__ + " ")
                sys.stdout.flush()
                try:
                    f()
                    counts["passed"] += 1; sys.stdout.write("ok")
                except SKIP as e:
                    counts["skipped"] += 1; sys.stdout.write(str(e) + " s")
                except XFail:
                    counts["xfail"] += 1; sys.stdout.write("f")
                except AssertionError:
                    counts["failed"] += 1; bad = True; sys.stdout.write("F")
                    failures.append((path, f.__name__, traceback.format_exc()))
                except Exception:
                    counts["exceptions"] += 1; bad = True; sys.stdout.write("E")
                    failures.append((path, f.__name__, traceback.format_exc()))
            sys.stdout.write(" " * 20 + ("[FAIL]" if bad else "[OK]") + "\\n")
        print()
        for path, name, tb in failures:
            print("_" * 20 + " %s:%s " % (path, name) + "_" * 20)
            print(tb)
        # As sympy's reporter: each part goes on a new line once the line would pass 80
        # columns, then the whole text is centred (with no "=" at all when it is that long).
        text = "tests finished: %d passed, " % counts["passed"]
        width = len(text)
        for key, word in (("failed", "failed"), ("skipped", "skipped"),
                          ("xfail", "expected to fail"), ("exceptions", "exceptions"), ("", "")):
            part = ("%d %s, " % (counts[key], word) if key else
                    "in %.2f seconds" % (time.time() - t0))
            if key and not counts[key]:
                continue
            if width + len(part) > 80:
                text, width = text + "\\n", 0
            text, width = text + part, width + len(part)
        text = " %s " % text
        left = (80 - len(text)) // 2
        print("=" * left + text + "=" * (80 - left - len(text)))
        if failures:
            print("DO *NOT* COMMIT!")
        sys.exit(1 if failures else 0)
        """),
}
SYMPY_CMD = "python3 bin/test -C --verbose calc/tests/test_ops.py"

EXPECTED = {
    "pytest-log": {"tests/test_calc.py::test_passes": "passed",
                   "tests/test_calc.py::test_fails": "failed",
                   "tests/test_calc.py::test_errors": "error",
                   "tests/test_calc.py::test_xfails": "xfailed",
                   "tests/test_calc.py::test_param[1-1]": "passed",
                   "tests/test_calc.py::test_param[2-2]": "passed"},
    "django": {"test_passes (calc.tests.CalcTests)": "passed",
               "test_fails (calc.tests.CalcTests)": "failed",
               "test_errors (calc.tests.CalcTests)": "error",
               "test_skipped (calc.tests.CalcTests)": "skipped",
               "test_xfails (calc.tests.CalcTests)": "xfailed"},
    "sympy": {"test_passes": "passed", "test_fails": "failed", "test_errors": "error",
              "test_skipped": "skipped", "test_xfails": "xfailed"},
}
FILES = {"pytest-log": PYTEST_FILES, "django": DJANGO_FILES, "sympy": SYMPY_FILES}
COMMANDS = {"pytest-log": PYTEST_CMD, "django": DJANGO_CMD, "sympy": SYMPY_CMD}


def write_repo(root: Path, style: str) -> Path:
    for rel, text in FILES[style].items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "bin").mkdir(exist_ok=True)
    return root


def run_output(root: Path, style: str) -> str:
    """The real output of the style's test command run here (stdout and stderr together)."""
    cmd = COMMANDS[style].replace("python3", sys.executable, 1)
    r = subprocess.run(cmd, shell=True, cwd=root, capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    return r.stdout + r.stderr
