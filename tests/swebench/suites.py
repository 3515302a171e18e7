"""Repositories in the shape of the upstream suites SWE-bench's rows come from, generated here
(facts learnt from the real repositories, nothing of theirs copied), and their rows.

Each family is one image (the repository at `/testbed` with its history, an environment the
eval script activates) and several rows, each fixing one bug of the base commit, with ids as
the official log parser keys them:

- `symp`: sympy's shape: `bin/test` imports its helper `get_sympy` from its own folder and calls
  the package's `test()`, which re-runs itself in a `python -R` subprocess (hash randomization)
  and prints sympy's verbose reporter (`path[N] `, `test_x ok`, `[OK]`, `tests finished: ...`).
- `djang`: Django's shape: `tests/runtests.py` imports its settings module and test apps from
  its own folder, the framework is installed (a `.pth`, as `pip install -e`), unittest's
  verbosity-2 lines under Python 3.11 (`name (app.tests.Class.name)`), a test with a docstring.
- `srclay`: a src layout run as `PYTHONPATH=src python3 -m pytest -rA`, parametrized ids with
  spaces (kept cut at the first whitespace, as `parse_log_pytest` keys them; one cut id names
  two tests), an xfail PASS_TO_PASS test.
- `colour`: the repository's own `addopts` turn colour on (`--color=yes`), read by the ANSI-
  stripping parser (`parse_log_pytest_v2`, whose ids keep their spaces).
- `tally`: pytest testing a pytest plugin: `-p pytester` in `addopts`, a conftest with its own
  hooks, inline (`runpytest`, `inline_run`) and subprocess (`runpytest_subprocess`) inner
  sessions, an inner run whose `XFAIL` line the official parser counts, `PYTEST_CURRENT_TEST`
  checked inside an inner session.
- `unitt`: plain `python -m unittest -v`, read with Django's parser (the same lines).
"""

from __future__ import annotations

import io
import json
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.images import BASE_TAG
from tests.swebench.fixtures import ACTIVATE, GIT_ENV, git

D = textwrap.dedent


@dataclass(frozen=True)
class Bug:
    """One row: the fix (`fixed`: path -> (old text, new text)), what its test patch appends to
    test files (or writes as new ones), and the ids as the row's parser keys them."""

    name: str
    fixed: dict[str, tuple[str, str]]
    tests: dict[str, str | tuple[str, str]]  # text appended, or (anchor, text put before it)
    f2p: list[str]
    p2p: list[str]


@dataclass(frozen=True)
class Family:
    name: str
    repo: str
    log_parser: str
    command: str
    files: dict[str, str]
    bugs: list[Bug]
    executables: tuple[str, ...] = ()
    dockerfile_extra: str = ""
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def image(self) -> str:
        return f"evaluator-test/suite-{self.name}:1"


# --- sympy's shape ------------------------------------------------------------------------
_SYMP_RUNNER = D('''\
    """The package's own test runner, as sympy's `runtests` prints with --verbose."""
    import os, random, subprocess, sys, time, traceback


    class Skipped(Exception):
        pass


    class XFail(Exception):
        pass


    def XFAIL(func):
        def wrapper():
            try:
                func()
            except Exception:
                raise XFail(func.__name__)
            raise AssertionError("XPASS")
        wrapper.__name__ = func.__name__
        wrapper.__wrapped__ = func
        return wrapper


    def root():
        return os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


    def test(*paths, verbose=False, subprocess_=True):
        if subprocess_ and not os.getenv("PYTHONHASHSEED"):
            os.environ["PYTHONHASHSEED"] = str(random.randrange(2**32))
            code = ("import sys; from symp.testing.runtests import _test; "
                    "sys.exit(_test(*%r, verbose=%r))" % (paths, verbose))
            ret = subprocess.call([sys.executable, "-R", "-c", code], cwd=root())
            return not ret
        return not _test(*paths, verbose=verbose)


    def _files(paths):
        out = []
        for d, _, names in sorted(os.walk(os.path.join(root(), "symp"))):
            for n in sorted(names):
                full = os.path.join(d, n)
                rel = os.path.relpath(full, root())
                if n.startswith("test_") and n.endswith(".py") and (
                        not paths or any(p in rel for p in paths)):
                    out.append(full)
        return out


    def _write_center(text, delim="="):
        text = " %s " % text if text else ""
        idx = (80 - len(text)) // 2
        sys.stdout.write(delim * idx + text + delim * (80 - idx - len(text)) + "\\n")


    def _test(*paths, verbose=False):
        _write_center("test process starts")
        sys.stdout.write("executable:         %s  (%s)\\n" % (sys.executable, sys.version.split()[0]))
        sys.stdout.write("cache:              %s\\n" % (os.getenv("SYMP_USE_CACHE") != "no"))
        sys.stdout.write("hash randomization: on (PYTHONHASHSEED=%s)\\n\\n" % os.getenv("PYTHONHASHSEED"))
        counts = {"passed": 0, "failed": [], "skipped": 0, "xfail": 0, "exceptions": []}
        t0 = time.time()
        for path in _files(paths):
            rel = os.path.relpath(path, root())
            gl = {"__file__": path}
            with open(path, encoding="utf8") as f:
                exec(compile(f.read(), path, "exec"), gl)
            funcs = [gl[n] for n in gl if n.startswith("test_") and callable(gl[n])
                     and getattr(getattr(gl[n], "__wrapped__", gl[n]), "__code__", None)
                     and getattr(gl[n], "__wrapped__", gl[n]).__code__.co_filename == path]
            funcs.sort(key=lambda f: getattr(f, "__wrapped__", f).__code__.co_firstlineno)
            sys.stdout.write("%s[%d] " % (rel, len(funcs)))
            bad = False
            for f in funcs:
                if verbose:
                    sys.stdout.write("\\n" + f.__name__ + " ")
                try:
                    f()
                except AssertionError:
                    counts["failed"].append((rel, f.__name__, traceback.format_exc()))
                    bad = True
                    sys.stdout.write("F")
                except Exception as e:
                    if type(e).__name__ == "Skipped":
                        counts["skipped"] += 1
                        sys.stdout.write((str(e) + " " if verbose else "") + "s")
                    elif type(e).__name__ == "XFail":
                        counts["xfail"] += 1
                        sys.stdout.write("f")
                    else:
                        counts["exceptions"].append((rel, f.__name__, traceback.format_exc()))
                        bad = True
                        sys.stdout.write("E")
                else:
                    counts["passed"] += 1
                    sys.stdout.write("ok" if verbose else ".")
            sys.stdout.write(" " + ("[FAIL]" if bad else "[OK]").rjust(20) + "\\n")
            if verbose:
                sys.stdout.write("\\n")
        sys.stdout.write("\\n")
        for kind, sep in (("exceptions", ":"), ("failed", "::")):
            for rel, name, tb in counts[kind]:
                _write_center("", "_")
                _write_center("%s%s%s" % (rel, sep, name), "_")
                sys.stdout.write(tb)
        text = "tests finished: %d passed, " % counts["passed"]
        width = len(text)
        for n, part in ((len(counts["failed"]), "%d failed, "), (counts["skipped"], "%d skipped, "),
                        (counts["xfail"], "%d expected to fail, "),
                        (len(counts["exceptions"]), "%d exceptions, "), (1, "in %.2f seconds")):
            if not n:
                continue
            part = part % (n if "seconds" not in part else time.time() - t0)
            if width + len(part) > 80:  # sympy breaks its totals onto a new line here
                text, width = text + "\\n", 0
            text, width = text + part, width + len(part)
        _write_center(text)
        ok = not counts["failed"] and not counts["exceptions"]
        if not ok:
            sys.stdout.write("DO *NOT* COMMIT!\\n")
        return int(not ok)
    ''')

SYMP = Family(
    name="symp", repo="sympy/sympy", log_parser="parse_log_sympy",
    command="PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose "
            "{files}",
    executables=("bin/test",),
    files={
        "bin/get_sympy.py": D('''\
            """Functions to get the correct package to run tests."""
            import os, sys


            def path_hack():
                this_file = os.path.abspath(__file__)
                root = os.path.normpath(os.path.join(os.path.dirname(this_file), ".."))
                sys.path.insert(0, root)
                return root
            '''),
        "bin/test": D('''\
            #!/usr/bin/env python
            """Program to execute tests using the package's own test runner."""
            import os, sys
            from argparse import ArgumentParser

            from get_sympy import path_hack
            path_hack()

            parser = ArgumentParser()
            parser.add_argument("-v", "--verbose", action="store_true", default=False)
            parser.add_argument("-C", "--no-cache", dest="cache", action="store_false", default=True)
            options, args = parser.parse_known_args()
            if not options.cache:
                os.environ["SYMP_USE_CACHE"] = "no"

            import symp

            ok = symp.test(*args, verbose=options.verbose)
            if ok:
                sys.exit(0)
            else:
                sys.exit(1)
            '''),
        "symp/__init__.py": "from symp.testing.runtests import test\n",
        "symp/testing/__init__.py": "",
        "symp/testing/runtests.py": _SYMP_RUNNER,
        "symp/core/__init__.py": "",
        "symp/core/numbers.py": D('''\
            def gcd(a, b):
                while b:
                    a, b = b, a % b
                return a


            def lcm(a, b):
                return a * b
            '''),
        "symp/core/power.py": D('''\
            def isqrt(n):
                x = n
                while x * x > n:
                    x = (x + n // x) // 2
                return x + 1
            '''),
        "symp/core/tests/__init__.py": "",
        "symp/core/tests/test_numbers.py": D('''\
            from symp.core.numbers import gcd, lcm
            from symp.testing.runtests import XFAIL, Skipped


            def test_gcd():
                assert gcd(12, 18) == 6


            def test_lcm_zero():
                assert lcm(0, 5) == 0


            def test_slow_gcd():
                raise Skipped("Slow")


            @XFAIL
            def test_gcd_floats():
                assert gcd(0.5, 0.2) == 0.1
            '''),
        "symp/core/tests/test_power.py": D('''\
            from symp.core.power import isqrt


            def test_isqrt_zero():
                assert isqrt(0) in (0, 1)


            def test_isqrt_one():
                assert isqrt(1) in (1, 2)
            '''),
    },
    bugs=[
        Bug("lcm", {"symp/core/numbers.py": ("return a * b",
                                             "return a * b // gcd(a, b) if a and b else 0")},
            # sympy prints a file's `[OK]` on its last test's line, where the official parser
            # does not see that test: new tests go before it, as rows made that way hold them
            {"symp/core/tests/test_numbers.py": ("def test_slow_gcd", "def test_lcm():\n"
                                                 "    assert lcm(4, 6) == 12\n\n\n")},
            ["test_lcm"], ["test_gcd", "test_lcm_zero"]),
        Bug("isqrt", {"symp/core/power.py": ("return x + 1", "return x")},
            {"symp/core/tests/test_power.py": ("def test_isqrt_one", "def test_isqrt():\n"
                                               "    assert isqrt(16) == 4\n\n\n")},
            ["test_isqrt"], ["test_isqrt_zero"]),
    ],
)

# --- Django's shape -------------------------------------------------------------------------
_DJ_T = "utils_tests.test_text.TextTests"
DJANG = Family(
    name="djang", repo="django/django", log_parser="parse_log_django",
    command="./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 {labels}",
    executables=("tests/runtests.py",),
    # installed as `pip install -e .` leaves it: the repository on every interpreter's path
    dockerfile_extra="RUN echo /testbed > /usr/lib/python3/dist-packages/testbed.pth\n",
    files={
        "djang/__init__.py": "VERSION = (4, 2)\n",
        "djang/conf.py": D('''\
            import importlib, os


            class _Settings:
                def __getattr__(self, name):
                    mod = importlib.import_module(os.environ["DJANGO_SETTINGS_MODULE"])
                    return getattr(mod, name)


            settings = _Settings()
            '''),
        "djang/test/__init__.py": D('''\
            import unittest


            class SimpleTestCase(unittest.TestCase):
                pass
            '''),
        "djang/test/runner.py": D('''\
            import sys, unittest


            class DiscoverRunner:
                def __init__(self, verbosity=1, parallel=1):
                    self.verbosity, self.parallel = verbosity, parallel

                def run_tests(self, labels):
                    suite = unittest.defaultTestLoader.loadTestsFromNames(labels)
                    print("Found %d test(s)." % suite.countTestCases())
                    sys.stderr.write("Creating test database for alias 'default'...\\n")
                    print("System check identified no issues (0 silenced).")
                    result = unittest.TextTestRunner(verbosity=self.verbosity).run(suite)
                    sys.stderr.write("Destroying test database for alias 'default'...\\n")
                    return len(result.failures) + len(result.errors)
            '''),
        "djang/utils/__init__.py": "",
        "djang/utils/text.py": D('''\
            def capfirst(x):
                return x and x.upper()


            def slugify(value):
                value = "".join(c if c.isalnum() else "-" for c in value)
                return value.strip("-")


            def wrap(text, width):
                return [text[i:i + width] for i in range(0, len(text), width)]
            '''),
        "tests/test_sqlite.py": "DATABASES = {'default': {'ENGINE': 'djang.db.backends.sqlite3'}}\n"
                                "SECRET_KEY = 'django_tests_secret_key'\n",
        "tests/utils_tests/__init__.py": "",
        "tests/utils_tests/test_text.py": D('''\
            from djang.test import SimpleTestCase
            from djang.utils.text import slugify, wrap


            class TextTests(SimpleTestCase):
                def test_wrap(self):
                    self.assertEqual(wrap("abcd", 2), ["ab", "cd"])

                def test_slugify_digits(self):
                    """slugify() keeps digits."""
                    self.assertIn("42", slugify("x 42"))
            '''),
        "tests/runtests.py": D('''\
            #!/usr/bin/env python
            import argparse, os, sys

            import djang
            from djang.conf import settings
            from djang.test.runner import DiscoverRunner

            RUNTESTS_DIR = os.path.abspath(os.path.dirname(__file__))


            def setup(verbosity, labels):
                if verbosity >= 1:
                    print("Testing against Django installed in '%s' with up to 1 processes"
                          % os.path.dirname(djang.__file__))
                settings.SECRET_KEY  # the settings module is importable from here
                for label in sorted({l.split(".")[0] for l in labels}):
                    if verbosity >= 2:
                        print("Importing application %s" % label)


            if __name__ == "__main__":
                parser = argparse.ArgumentParser(description="Run the Django test suite.")
                parser.add_argument("modules", nargs="*")
                parser.add_argument("-v", "--verbosity", default=1, type=int)
                parser.add_argument("--settings")
                parser.add_argument("--parallel", default=0)
                options = parser.parse_args()
                os.environ["DJANGO_SETTINGS_MODULE"] = options.settings or "test_sqlite"
                setup(options.verbosity, options.modules)
                failures = DiscoverRunner(options.verbosity, options.parallel).run_tests(
                    options.modules)
                sys.exit(bool(failures))
            '''),
    },
    bugs=[
        Bug("capfirst", {"djang/utils/text.py": ("return x and x.upper()",
                                                 "return x and x[0].upper() + x[1:]")},
            {"tests/utils_tests/test_text.py": (
                "\n    def test_capfirst(self):\n        from djang.utils.text import capfirst\n"
                '        self.assertEqual(capfirst("hello world"), "Hello world")\n')},
            [f"test_capfirst ({_DJ_T}.test_capfirst)"],
            [f"test_wrap ({_DJ_T}.test_wrap)", "slugify() keeps digits."]),
        Bug("slugify", {"djang/utils/text.py": ('return value.strip("-")',
                                                'return value.strip("-").lower()')},
            {"tests/utils_tests/test_slug.py": D('''\
                 from djang.test import SimpleTestCase
                 from djang.utils.text import slugify


                 class SlugTests(SimpleTestCase):
                     def test_slugify_plain(self):
                         self.assertEqual(slugify("abc"), "abc")

                     def test_slugify_lower(self):
                         """slugify() lower-cases."""
                         self.assertEqual(slugify("Hello World"), "hello-world")
                 ''')},
            ["slugify() lower-cases."],
            ["test_slugify_plain (utils_tests.test_slug.SlugTests.test_slugify_plain)"]),
    ],
)

# --- src layout, PYTHONPATH=src, parametrized ids with spaces -------------------------------
SRCLAY = Family(
    name="srclay", repo="pallets/flask", log_parser="parse_log_pytest",
    command="PYTHONPATH=src python3 -m pytest -rA {files}",
    files={
        "setup.cfg": "[tool:pytest]\ntestpaths = tests\nfilterwarnings =\n    error\n",
        "src/textkit/__init__.py": "from textkit.core import pad, title\n",
        "src/textkit/core.py": D('''\
            def pad(text, width, fill=" "):
                return text + fill * (width - len(text) - 1)


            def title(text):
                return text.capitalize()
            '''),
        "tests/test_core.py": D('''\
            import pytest

            from textkit import pad, title


            def test_pad_short():
                assert pad("abc", 2) == "abc"


            @pytest.mark.xfail(reason="an empty fill pads nothing")
            def test_pad_empty_fill():
                assert pad("a", 3, fill="") == "a  "


            @pytest.mark.parametrize("text", ["a b", "c d"])
            def test_title_keeps(text):
                assert title(text)[0].isupper()
            '''),
    },
    bugs=[
        Bug("pad", {"src/textkit/core.py": ("width - len(text) - 1", "width - len(text)")},
            {"tests/test_core.py": D('''

                @pytest.mark.parametrize("text,width", [("a b", 5), ("a bc", 6), ("x y z", 9)])
                def test_pad(text, width):
                    assert len(pad(text, width)) == width
                ''')},
            # as parse_log_pytest keys them: cut at the first space; `test_pad[a` is two tests
            ["tests/test_core.py::test_pad[a", "tests/test_core.py::test_pad[x"],
            # an xfail test is kept, as the official harness counts XFAIL
            ["tests/test_core.py::test_pad_short", "tests/test_core.py::test_pad_empty_fill",
             "tests/test_core.py::test_title_keeps[a",
             "tests/test_core.py::test_title_keeps[c"]),
        Bug("title", {"src/textkit/core.py": ("return text.capitalize()", "return text.title()")},
            {"tests/test_title.py": D('''\
                import pytest

                from textkit import title


                def test_title_empty():
                    assert title("") == ""


                @pytest.mark.parametrize("text,want", [("a b", "A B"), ("hello there", "Hello There")])
                def test_title(text, want):
                    assert title(text) == want
                ''')},
            ["tests/test_title.py::test_title[a", "tests/test_title.py::test_title[hello"],
            ["tests/test_title.py::test_title_empty"]),
    ],
)

# --- the repository's addopts turn colour on; the ANSI-stripping parser ---------------------
COLOUR = Family(
    name="colour", repo="astropy/astropy", log_parser="parse_log_pytest_v2",
    command="python3 -m pytest -rA -vv -o console_output_style=classic --tb=no {files}",
    files={
        "pyproject.toml": D('''\
            [tool.pytest.ini_options]
            addopts = "--color=yes -p no:cacheprovider"
            pythonpath = ["."]
            testpaths = ["units"]
            '''),
        "units/__init__.py": "",
        "units/core.py": D('''\
            FACTORS = {"m": 1, "km": 1000, "cm": 0.01}


            def convert(value, unit):
                return value * FACTORS.get(unit, 1)


            def parse(text):
                number, unit = text.split()
                return int(number), unit
            '''),
        "units/tests/__init__.py": "",
        "units/tests/test_core.py": D('''\
            import pytest

            from units.core import convert, parse


            @pytest.mark.parametrize("text", ["1 m", "2 km"])
            def test_parse(text):
                assert parse(text)[1] in ("m", "km")


            def test_convert_m():
                assert convert(3, "m") == 3
            '''),
    },
    bugs=[
        Bug("mm", {"units/core.py": ('"cm": 0.01}', '"cm": 0.01, "mm": 0.001}')},
            {"units/tests/test_core.py": D('''

                @pytest.mark.parametrize("value,unit,want", [(1000, "mm", 1), (5, "km", 5000)])
                def test_convert(value, unit, want):
                    assert convert(value, unit) == pytest.approx(want)
                ''')},
            ["units/tests/test_core.py::test_convert[1000-mm-1]"],
            ["units/tests/test_core.py::test_convert[5-km-5000]",
             "units/tests/test_core.py::test_parse[1 m]", "units/tests/test_core.py::test_parse[2 km]",
             "units/tests/test_core.py::test_convert_m"]),
        Bug("float", {"units/core.py": ("return int(number), unit", "return float(number), unit")},
            {"units/tests/test_parse.py": D('''\
                from units.core import parse


                def test_parse_int():
                    assert parse("2 m") == (2, "m")


                def test_parse_float():
                    assert parse("1.5 km") == (1.5, "km")
                ''')},
            ["units/tests/test_parse.py::test_parse_float"],
            ["units/tests/test_parse.py::test_parse_int"]),
    ],
)

# --- pytest testing a pytest plugin: pytester, its own conftest plugins ---------------------
TALLY = Family(
    name="tally", repo="pytest-dev/pytest", log_parser="parse_log_pytest",
    command="pytest -rA {files}",
    dockerfile_extra="RUN echo /testbed/src > /usr/lib/python3/dist-packages/tally.pth\n",
    files={
        "pyproject.toml": D('''\
            [tool.pytest.ini_options]
            addopts = "-rfEX -p pytester --strict-markers"
            testpaths = ["testing"]
            xfail_strict = true
            filterwarnings = ["error"]
            '''),
        "src/pytest_tally/__init__.py": "",
        "src/pytest_tally/plugin.py": D('''\
            def pytest_addoption(parser):
                parser.addoption("--tally", action="store_true", help="print a one-line tally")


            def format_tally(passed, failed, skipped):
                return "tally: %d passed, %d failed" % (passed, failed)


            def pytest_terminal_summary(terminalreporter, config):
                if config.getoption("tally"):
                    stats = terminalreporter.stats
                    n = {k: len([r for r in stats.get(k, []) if getattr(r, "when", "call")
                                 in ("call", "setup")]) for k in ("passed", "failed", "skipped", "error")}
                    terminalreporter.write_line(format_tally(n["passed"], n["error"], n["skipped"]))
            '''),
        "testing/conftest.py": D('''\
            import pytest


            @pytest.hookimpl(hookwrapper=True, tryfirst=True)
            def pytest_collection_modifyitems(items):
                """Tests that run inner sessions go last (they are the slow ones)."""
                fast = [i for i in items if "pytester" not in getattr(i, "fixturenames", ())]
                slow = [i for i in items if "pytester" in getattr(i, "fixturenames", ())]
                items[:] = fast + slow
                yield


            @pytest.fixture
            def pytester(pytester, monkeypatch):
                monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
                return pytester
            '''),
        "testing/test_plugin.py": D('''\
            import os

            from pytest_tally.plugin import format_tally


            def test_format_plain():
                assert format_tally(1, 0, 0).startswith("tally: 1 passed")


            def test_inner_xfail_reported(pytester):
                pytester.makepyfile(test_inner="import pytest\\n\\n"
                                    "@pytest.mark.xfail(reason='known')\\n"
                                    "def test_known():\\n    assert 0\\n")
                result = pytester.runpytest("-rA")
                result.assert_outcomes(xfailed=1)


            def test_current_test_var_inside(pytester):
                pytester.makepyfile("import os\\n\\ndef test_env():\\n"
                                    "    assert os.environ['PYTEST_CURRENT_TEST'].endswith('(call)')\\n")
                pytester.inline_run().assertoutcome(passed=1)
            '''),
    },
    bugs=[
        Bug("failed", {"src/pytest_tally/plugin.py": ('n["error"], n["skipped"]',
                                                     'n["failed"], n["skipped"]')},
            {"testing/test_plugin.py": D('''

                def test_tally_counts_failures(pytester):
                    pytester.makepyfile("def test_a():\\n    pass\\n\\ndef test_b():\\n    assert 0\\n")
                    result = pytester.runpytest("-p", "pytest_tally.plugin", "--tally")
                    result.stdout.fnmatch_lines(["tally: 1 passed, 1 failed*"])
                ''')},
            ["testing/test_plugin.py::test_tally_counts_failures"],
            ["testing/test_plugin.py::test_format_plain",
             "testing/test_plugin.py::test_inner_xfail_reported",
             "testing/test_plugin.py::test_current_test_var_inside",
             "test_inner.py::test_known"]),  # the inner run's XFAIL line, as the parser reads it
        Bug("skipped", {"src/pytest_tally/plugin.py": (
                'return "tally: %d passed, %d failed" % (passed, failed)',
                'return "tally: %d passed, %d failed, %d skipped" % (passed, failed, skipped)')},
            {"testing/test_subprocess.py": D('''\
                def test_subprocess_plain(pytester):
                    pytester.makepyfile("def test_a():\\n    pass\\n")
                    pytester.runpytest_subprocess().assert_outcomes(passed=1)


                def test_tally_in_a_subprocess(pytester):
                    pytester.makepyfile("import pytest\\n\\ndef test_a():\\n    pass\\n\\n"
                                        "@pytest.mark.skip(reason='no')\\ndef test_b():\\n    pass\\n")
                    result = pytester.runpytest_subprocess("-p", "pytest_tally.plugin", "--tally")
                    result.stdout.fnmatch_lines(["tally: 1 passed, 0 failed, 1 skipped"])
                ''')},
            ["testing/test_subprocess.py::test_tally_in_a_subprocess"],
            ["testing/test_subprocess.py::test_subprocess_plain"]),
    ],
)

# --- plain unittest ---------------------------------------------------------------------------
_U = "tests.test_parse.ParseTests"
UNITT = Family(
    name="unitt", repo="acme/unitt", log_parser="parse_log_django",
    command="python3 -m unittest -v {labels}",
    files={
        "unitt/__init__.py": "",
        "unitt/parse.py": D('''\
            def words(text):
                return text.split(" ")


            def number(text):
                return int(text)
            '''),
        "tests/__init__.py": "",
        "tests/test_parse.py": D('''\
            import unittest

            from unitt.parse import number, words


            class ParseTests(unittest.TestCase):
                def test_words_single(self):
                    self.assertEqual(words("a"), ["a"])

                def test_number(self):
                    self.assertEqual(number("12"), 12)
            '''),
    },
    bugs=[
        Bug("words", {"unitt/parse.py": ('text.split(" ")', "text.split()")},
            {"tests/test_parse.py": "\n    def test_words_spaces(self):\n"
                                    '        self.assertEqual(words("a  b"), ["a", "b"])\n'},
            [f"test_words_spaces ({_U}.test_words_spaces)"],
            [f"test_words_single ({_U}.test_words_single)", f"test_number ({_U}.test_number)"]),
        Bug("number", {"unitt/parse.py": ("return int(text)", "return int(text.strip() or 0)")},
            {"tests/test_parse.py": "\n    def test_number_blank(self):\n"
                                    '        self.assertEqual(number(" "), 0)\n'},
            [f"test_number_blank ({_U}.test_number_blank)"],
            [f"test_number ({_U}.test_number)"]),
    ],
)

FAMILIES = (SYMP, DJANG, SRCLAY, COLOUR, TALLY, UNITT)
START, END = ">>>>> Start Test Output", ">>>>> End Test Output"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _diff(repo: Path, change: dict[str, str]) -> str:
    """The diff that writes `change` (path -> whole new text) over the base; repo left at base."""
    _write(repo, change)
    git(repo, "add", "-A")
    out = git(repo, "diff", "--cached")
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-qfdx")
    return out


def _added(text: str, add: str | tuple[str, str]) -> str:
    if isinstance(add, str):
        return text + add
    anchor, new = add
    assert anchor in text, anchor
    return text.replace(anchor, new + anchor, 1)


def _eval_script(family: Family, sha: str, test_patch: str, test_files: list[str],
                 existing: list[str]) -> str:
    """An eval script as SWE-bench writes them: environment, reset of the test files, the
    test patch, the test command between the markers, the reset again."""
    labels = " ".join(sorted({f[len("tests/"):-3].replace("/", ".") if family.name == "djang"
                              else f[:-3].replace("/", ".") for f in test_files}))
    command = family.command.format(files=" ".join(test_files), labels=labels)
    reset = f"git checkout {sha} {' '.join(existing)}" if existing else ""
    return "\n".join([
        "#!/bin/bash", "set -uxo pipefail", "source /opt/miniconda3/bin/activate",
        "conda activate testbed", "cd /testbed",
        "git config --global --add safe.directory /testbed", "cd /testbed", "git status",
        "git show", f"git -c core.fileMode=false diff {sha}",
        "source /opt/miniconda3/bin/activate", "conda activate testbed", reset,
        "git apply -v - <<'EOF_114329324912'", test_patch.rstrip("\n"), "EOF_114329324912",
        f": '{START}'", command, f": '{END}'", reset, ""])


def _history(repo: Path, commits: int, mb: float = 0, files: int = 2_000) -> None:
    """`commits` earlier commits, written at once by git fast-import: each edits HISTORY.txt,
    or with `mb`, rewrites one of `files` modules under history/ with text that does not
    compress away, about `mb` MB of packed history in all (an upstream project's edits)."""
    import base64
    import random

    rng = random.Random(1)
    raw = int(mb * 1_000_000 * 7 / 8 / max(commits, 1))  # its base64 packs to about 8/7 of it
    out = io.BytesIO()
    for i in range(commits):
        out.write(b"commit refs/heads/master\ncommitter fixture <fixture@localhost> %d +0000\n"
                  b"data 8\nc%07d\n" % (10**9 + i, i))
        if raw >= 16:
            text = base64.b64encode(rng.randbytes(raw))
            body = b"DATA = (\n" + b"".join(b"    '%s'\n" % text[j:j + 76]
                                            for j in range(0, len(text), 76)) + b")\n"
            path = b"history/m%03d/f%05d.py" % divmod(rng.randrange(files), 100)
        else:
            body, path = (b"change %d\n" % i) * 4, b"HISTORY.txt"
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path, len(body), body))
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], check=True,
                   input=out.getvalue(), capture_output=True)
    git(repo, "checkout", "-q", "-f", "master")


def _padding(repo: Path, mb: float, files: int) -> None:
    """About `mb` MB of source in `files` modules that nothing imports (an upstream tree's bulk)."""
    import random

    rng = random.Random(0)
    per = max(int(mb * 1_000_000) // max(files, 1), 40)
    for i in range(files):
        path = repo / "vendored" / f"m{i // 500:03d}" / f"f{i:05d}.py"
        if i % 500 == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"DATA = '{rng.randbytes(per // 2 - 16).hex()}'\n")


def build(root: Path, family: Family, *, pad_mb: float = 0, pad_files: int = 0,
          commits: int = 0, history_mb: float = 0
          ) -> tuple[Path, list[dict[str, Any]], dict[str, dict[str, str]]]:
    """The family's repository (git; the base commit last, after `commits` earlier ones holding
    about `history_mb` MB of packed history; padded with `pad_mb` MB in `pad_files` files for
    upstream size), its Dockerfile folder, its 5.x rows and its patches by instance id (gold,
    empty, noop)."""
    repo = root / family.name / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "master")
    if commits:
        _history(repo, commits, history_mb)
    if pad_files:
        # The bulk lands in an earlier commit, packed as a clone's store is: the base commit's
        # own diff stays an upstream fix's size (an eval script's `git show` prints it).
        _padding(repo, pad_mb, pad_files)
        git(repo, "add", "-A")
        git(repo, "-c", "gc.auto=0", "commit", "-qm", "vendored")
        git(repo, "repack", "-a", "-d", "-q", "--window=0")
    _write(repo, family.files)
    for rel in family.executables:
        (repo / rel).chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "-c", "gc.auto=0", "commit", "-qm", "base")
    sha = git(repo, "rev-parse", "HEAD").strip()
    rows, patches = [], {}
    for bug in family.bugs:
        iid = f"acme__{family.name}-{bug.name}"
        fixed = {}
        for rel, (old, new) in bug.fixed.items():
            text = (repo / rel).read_text()
            assert old in text, (family.name, bug.name, old)
            fixed[rel] = text.replace(old, new, 1)
        tests = {rel: _added((repo / rel).read_text() if (repo / rel).exists() else "", add)
                 for rel, add in bug.tests.items()}
        existing = sorted(rel for rel in tests if (repo / rel).exists())
        first = sorted(bug.fixed)[0]
        noop = {first: (repo / first).read_text() + "\n# kept as it was\n"}
        gold, test_patch, noop_patch = _diff(repo, fixed), _diff(repo, tests), _diff(repo, noop)
        test_files = sorted(tests)
        rows.append({
            "repo": family.repo, "instance_id": iid, "base_commit": sha, "patch": gold,
            "test_patch": test_patch, "problem_statement": f"{bug.name} is wrong.\n",
            "hints_text": "", "created_at": "2023-01-01T00:00:00Z", "version": "1.0",
            "environment_setup_commit": sha, "FAIL_TO_PASS": json.dumps(bug.f2p),
            "PASS_TO_PASS": json.dumps(bug.p2p), "image": family.image,
            "log_parser": family.log_parser, "eval_type": "pass_and_fail",
            "eval_script": _eval_script(family, sha, test_patch, test_files, existing),
        })
        patches[iid] = {"gold": gold, "empty": "", "noop": noop_patch}
    ctx = root / family.name
    (ctx / "Dockerfile").write_text(
        f"FROM {BASE_TAG}\n{ACTIVATE}{family.dockerfile_extra}COPY repo /testbed\n")
    return ctx, rows, patches


def build_image(ctx: Path, tag: str) -> None:
    # The CLI streams the context from Go (fast for hundreds of MB); no network for RUN steps.
    subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, str(ctx)],
                   check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "DOCKER_BUILDKIT": "0", **GIT_ENV})
