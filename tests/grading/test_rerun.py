"""The harness's own minimal runner, run for real (this interpreter, the dev lock's pytest) on
small repositories, and where the grader finds the pytest call of a task's command."""

import base64
import json
import shlex
import subprocess
import sys
import textwrap
import types
from pathlib import Path

from evaluator.grading._observe import rerun_results
from evaluator.grading._rerun import RUNNER, pytest_call
from evaluator.grading._run import payload
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


def rerun_here(root: Path, names: list[str], args: list[str] | None = None) -> dict:
    ids = [f"tests/test_lib.py::{n}" for n in names]
    conf = json.dumps({"nonce": "n", "tests": ids, "args": args or []})
    r = subprocess.run([sys.executable, "-c", payload(RUNNER).decode(), conf], cwd=root,
                       capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "PYTHONSAFEPATH": "1",
                            "PYTHONDONTWRITEBYTECODE": "1"})
    found, done, clashes = rerun_results(r.stdout, "n")
    assert done and not clashes and "noise" not in r.stdout, r.stdout + r.stderr
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


def test_the_pytest_call_of_a_task_command() -> None:
    c = pytest_call("source /env/bin/activate && PYTHONPATH=src python3 -W ignore -m pytest -rA x")
    assert c and c.prefix == "source /env/bin/activate &&" and c.assigns == ("PYTHONPATH=src",)
    assert c.interpreter == ("python3", "-W", "ignore") and c.args == ("-rA", "x")
    c = pytest_call("cd repo; pytest -p no:cacheprovider --junitxml={junit_xml} tests")
    assert c and c.interpreter is None and c.script == "pytest" and c.prefix == "cd repo;"
    assert pytest_call("tox -e py311") is None and pytest_call("python3 bin/test") is None


def test_code_under_test_cannot_claim_it_could_not_run(tmp_path: Path) -> None:
    root = repo(tmp_path)
    (root / "src/lib.py").write_text(
        "import sys\n\ndef double(x):\n    raise sys.modules['__main__'].Unrunnable('no')\n")
    assert rerun_here(root, ["test_fixtures", "test_double[one]"]) == {
        "test_fixtures": "failed", "test_double[one]": "failed"}



class _Replies:
    """A sandbox whose execs answer with the re-run lines given, one exec after another."""

    def __init__(self, *statuses: str) -> None:
        self.statuses, self.asked = list(statuses), []

    def exec(self, cmd: str, **_kw):  # noqa: ANN003
        conf = json.loads(shlex.split(cmd)[-1])
        self.asked.append(conf["tests"])
        status = self.statuses.pop(0)
        lines = [f"@@evaluator-rerun n {json.dumps({'id': t, 'status': status})}"
                 for t in conf["tests"]] + ['@@evaluator-rerun n {"done": 1}']
        return types.SimpleNamespace(output="\n".join(lines), exit_code=0)


def _look(sb: _Replies, reported: str = "passed"):
    from evaluator.grading._canary import Canaries
    from evaluator.grading._rerun import second_look

    return second_look(sb, _spec(), Canaries("n"), {"t.py::a": reported}, "", "", b"pass",
                       junit=False)


def test_a_failure_that_passes_in_a_fresh_interpreter_is_flaky_not_evidence() -> None:
    sb = _Replies("failed", "failed", "passed")
    looked = _look(sb)
    assert looked.weak == [] and any("flaky in the re-run: t.py::a" in n for n in looked.notes)
    assert sb.asked == [["t.py::a"]] * 3


def test_a_failure_every_time_is_evidence() -> None:
    looked = _look(_Replies(*["failed"] * 5))
    assert looked.weak and "t.py::a failed" in looked.weak[0]


def test_what_already_failed_in_pytest_is_not_re_run() -> None:
    sb = _Replies()
    looked = _look(sb, reported="failed")
    assert sb.asked == [] and looked.weak == looked.strong == []


class _Framed(_Replies):
    """A sandbox whose first exec prints the report file's frame before the re-run's lines."""

    def __init__(self, frame: str, *statuses: str) -> None:
        super().__init__(*statuses)
        self.frame = frame

    def exec(self, cmd: str, **kw):  # noqa: ANN003
        out = super().exec(cmd, **kw)
        return types.SimpleNamespace(output=self.frame + out.output, exit_code=0)


def _read(sb: _Replies):
    from evaluator.grading._canary import Canaries
    from evaluator.grading._rerun import read_and_rerun

    return read_and_rerun(sb, _spec(), Canaries("n"), "/g/junit.xml", "",
                          b"pass", 1000)


def _spec():
    from evaluator.grading._spec import GradeSpec
    from evaluator.sandbox import SandboxLimits

    return GradeSpec(task_set="t", task_id="x", image="i", workdir="/w", user="u", base_commit="c",
                     test_command="python3 -m pytest tests", hidden_tests_hash="h",
                     fail_to_pass=("t.py::a",), pass_to_pass=(), test_files=(),
                     limits=SandboxLimits())


def test_the_report_and_the_rerun_come_from_one_exec() -> None:
    from evaluator.grading._canary import Canaries
    from evaluator.grading._rerun import second_look

    sb = _Framed("@@evaluator-file " + base64.b64encode(b"<xml/>").decode() + "\n", "failed")
    data, first = _read(sb)
    assert data == b"<xml/>" and first is not None and first.asked == ("t.py::a",)
    looked = second_look(_Replies("failed", "failed", "failed", "failed"), _spec(),
                         Canaries("n"), {"t.py::a": "passed"}, "", "", b"pass", junit=False,
                         first=first)
    assert looked.weak and "t.py::a failed" in looked.weak[0]


def test_a_frame_that_is_not_the_exec_s_first_line_is_not_read() -> None:
    for frame in ("", "noise\n@@evaluator-file PHhtbC8+\n", "@@evaluator-file PHh [cut] tbC8+\n"):
        assert _read(_Framed(frame, "passed")) == (None, None)
