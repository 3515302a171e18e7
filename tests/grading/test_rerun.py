"""The harness's own minimal runner (the second observation's child), run for real (this
interpreter, the dev lock's pytest) on small repositories."""

import textwrap
from pathlib import Path

from tests.grading.support import rerun_in
from tests.helpers import write_files

CONFTEST = textwrap.dedent("""\
    import sys, pathlib
    import pytest
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "src"))

    def pytest_configure(config):
        config.addinivalue_line("markers", "slow: slow")

    @pytest.fixture
    def base():
        yield 10

    @pytest.fixture(autouse=True)
    def env(monkeypatch):
        monkeypatch.setenv("MODE", "test")
    """)
TESTS = textwrap.dedent("""\
    import os, sys, unittest
    from unittest import mock
    import pytest
    from lib import double

    @pytest.mark.parametrize("x,want", [(1, 2), (3, 6), (2, 5)], ids=["one", "three", "bad"])
    def test_double(x, want):
        print("PASSED noise")
        assert double(x) == want

    @pytest.mark.parametrize("x", [0, 1.5, "ab"])
    def test_auto_ids(x):
        assert double(x) == x + x

    def test_fixtures(base, tmp_path):
        (tmp_path / "f").write_text("x")
        assert double(base) == 20 and os.environ["MODE"] == "test"

    def test_no_pytest_in_modules():
        assert "pytest" not in sys.modules

    @mock.patch("lib.double", return_value=7)
    def test_patched(m):
        import lib
        assert lib.double(1) == 7

    class TestXunit:
        def setup_method(self, method):
            self.v = 4

        def test_method(self):
            assert double(self.v) == 8

    class TestCase(unittest.TestCase):
        def test_unit(self):
            self.assertEqual(double(2), 4)

        def test_unit_fails(self):
            self.assertEqual(double(2), 5)

    def test_capsys(capsys):
        pass

    @pytest.mark.xfail
    def test_xfail():
        assert False
    """)


def repo(tmp_path: Path, conftest: str = CONFTEST, ini: str = "[pytest]\n") -> Path:
    write_files(tmp_path, {"conftest.py": conftest, "pytest.ini": ini,
                           "src/lib.py": "def double(x):\n    return x * 2\n",
                           "tests/test_lib.py": TESTS})
    return tmp_path


def rerun_here(root: Path, names: list[str], args: list[str] | None = None, *,
               varied: bool = False) -> dict:
    ids = [f"tests/test_lib.py::{n}" for n in names]
    found = rerun_in(root, ids, args or [], varied=varied)
    return {t.split("::", 1)[1]: s for t, (s, _why) in found.items()}


def test_what_a_plain_test_needs_runs_as_pytest_runs_it(tmp_path: Path) -> None:
    got = rerun_here(repo(tmp_path), [
        "test_double[one]", "test_double[bad]", "test_auto_ids[0]", "test_auto_ids[1.5]",
        "test_auto_ids[ab]", "test_fixtures", "test_no_pytest_in_modules", "test_patched",
        "TestXunit::test_method", "TestCase::test_unit", "TestCase::test_unit_fails"])
    assert got == {"test_double[one]": "passed", "test_double[bad]": "failed",
                   "test_auto_ids[0]": "passed", "test_auto_ids[1.5]": "passed",
                   "test_auto_ids[ab]": "passed", "test_fixtures": "passed",
                   "test_no_pytest_in_modules": "passed", "test_patched": "passed",
                   "TestXunit::test_method": "passed", "TestCase::test_unit": "passed",
                   "TestCase::test_unit_fails": "failed"}


def test_what_only_pytest_provides_is_said_not_guessed(tmp_path: Path) -> None:
    got = rerun_here(repo(tmp_path), ["test_capsys", "test_xfail", "test_double[nine]"])
    assert set(got.values()) == {"unrunnable"}


def test_a_conftest_hook_or_a_plugin_makes_the_file_unrunnable(tmp_path: Path) -> None:
    hooked = CONFTEST + "\ndef pytest_runtest_setup(item):\n    pass\n"
    assert rerun_here(repo(tmp_path / "a", hooked), ["test_fixtures"]) == {
        "test_fixtures": "unrunnable"}
    assert rerun_here(repo(tmp_path / "b"), ["test_fixtures"], ["-p", "xdist"]) == {
        "test_fixtures": "unrunnable"}
    warned = "[pytest]\nfilterwarnings =\n    error\n"
    assert rerun_here(repo(tmp_path / "c", ini=warned), ["test_fixtures"]) == {
        "test_fixtures": "unrunnable"}


def test_a_module_that_does_not_import_is_an_error(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "src/lib.py").write_text("raise RuntimeError('no')\n")
    assert rerun_here(root, ["test_fixtures"]) == {"test_fixtures": "error"}


def test_code_under_test_cannot_claim_it_could_not_run(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "src/lib.py").write_text(
        "import sys\n\ndef double(x):\n    raise sys.modules['__main__'].Unrunnable('no')\n")
    assert rerun_here(root, ["test_fixtures", "test_double[one]"]) == {
        "test_fixtures": "failed", "test_double[one]": "failed"}


def test_the_varied_run_imports_the_tests_the_same(tmp_path: Path) -> None:
    names = ["test_double[one]", "test_fixtures", "TestXunit::test_method", "TestCase::test_unit"]
    assert rerun_here(repo(tmp_path), names, varied=True) == rerun_here(repo(tmp_path), names)
