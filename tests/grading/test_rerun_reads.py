"""The re-run's own readers agree with what pytest uses (`inspect.signature`, `iniconfig`) and
cost it no import of theirs: the runner starts in a fresh interpreter on every grade that resolves."""

import functools
import inspect
import random
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import iniconfig

from evaluator.grading._rerun import RUNNER
from evaluator.grading._run import payload
from tests.helpers import write_files


def _runner() -> dict[str, Any]:
    ns: dict[str, Any] = {"__name__": "rerun"}  # not __main__: nothing runs
    exec(compile(payload(RUNNER), RUNNER, "exec"), ns)
    return ns


class _K:
    def m(self, a, b=1): ...
    def star(*args): ...
    def kwonly(*, k): ...
    async def co(self, a): ...
    @staticmethod
    def s(a, /, b, *, c=3, **kw): ...
    @classmethod
    def cm(cls, a): ...
    def __call__(self, x): ...


def _shapes() -> list[Any]:
    def full(x, y=1, *args, k, m=2, **kw): ...
    async def co(a): ...
    def gen(a):
        yield a
    def signed(a): ...
    signed.__signature__ = inspect.Signature()  # type: ignore[attr-defined]
    wrapped = functools.wraps(full)(lambda *a, **k: None)
    k = _K()
    return [full, co, gen, signed, wrapped, functools.partial(full, 1), mock.patch("os.sep")(full),
            lambda x, y=2: 0, k.m, k.star, k.kwonly, k.co, _K.s, _K.cm, _K.m, k, len,
            functools.partial(co, 1)]


def test_parameters_and_coroutines_are_read_as_inspect_reads_them() -> None:
    r = _runner()
    for f in _shapes():
        try:
            want: Any = [(p.name, p.kind.name, p.default is not p.empty)
                         for p in inspect.signature(f).parameters.values()]
        except ValueError:
            want = ValueError
        try:
            got: Any = r["params"](f)
        except ValueError:
            got = ValueError
        assert got == want, f
        assert r["is_coroutine_function"](f) == inspect.iscoroutinefunction(f), f


def test_ini_files_are_read_as_pytest_reads_them() -> None:
    r, rng = _runner(), random.Random(0)
    parts = ["[pytest]", "[tool:pytest]", "[]", "k = v", "k2: v # kept", "a=b:c", "a:b=c",
             "  cont", "# c", "; c", "", "[x", " [y", "x"]
    for _ in range(500):
        text = "\n".join(rng.choice(parts) for _ in range(rng.randint(1, 6)))
        try:
            ini = iniconfig.IniConfig("f", data=text)
            want: Any = {s: dict(ini[s].items()) for s in ini.sections}
        except iniconfig.ParseError:
            want = "cannot"
        try:
            got = r["ini_sections"](text, "f")
        except r["Unrunnable"]:
            got = "cannot"
        assert got == want, text


def test_the_runner_imports_only_what_a_test_needs(tmp_path: Path) -> None:
    costly = ["inspect", "json", "re", "configparser", "shlex", "traceback", "tempfile", "ast"]
    write_files(tmp_path, {"pytest.ini": "[pytest]\npythonpath = src\n", "src/lib.py": "X = 1\n",
                           "tests/test_lib.py": f"import sys\nfrom lib import X\n\n\ndef test_x():\n"
                           f"    assert not set({costly}) & set(sys.modules)\n"})
    conf = '{"nonce": "n", "tests": ["tests/test_lib.py::test_x"], "args": ["tests"]}'
    r = subprocess.run([sys.executable, "-c", payload(RUNNER).decode(), conf], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "PYTHONSAFEPATH": "1"})
    assert '"status": "passed"' in r.stdout, r.stdout + r.stderr
