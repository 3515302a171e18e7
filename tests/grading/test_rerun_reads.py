"""The re-run's own readers agree with what pytest uses (`inspect.signature`, `iniconfig`) and
cost it no import of theirs: the runner starts in a fresh interpreter on every grade that resolves."""

import functools
import inspect
import random
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any
from unittest import mock

import iniconfig
from _pytest.config import get_config
from _pytest.config.exceptions import UsageError
from _pytest.config.findpaths import determine_setup
from _pytest.outcomes import Failed

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


def test_a_toml_file_without_a_pytest_table_is_told_apart_without_a_toml_reader() -> None:
    r, rng, told = _runner(), random.Random(0), 0
    parts = ["[tool]", "[tool.pytest]", '[ tool . "pytest" ]', "[project]", "pytest = 1",
             "tool = {pytest = {x = 1}}", '"py\\u0074est" = {a = 1}', "tool.pytest.x = 1",
             'deps = ["pytest>=7",', '"pytest"]', 'x = "pytest = 1"', "'tool' = {}", "a = 1",
             "# [tool.pytest]", "[tool.ruff]", 'b = """', "[pytest]"]
    for _ in range(2000):
        text = "\n".join(rng.choice(parts) for _ in range(rng.randint(1, 5)))
        try:
            tool = tomllib.loads(text).get("tool", {})
        except tomllib.TOMLDecodeError:
            continue
        has = isinstance(tool, dict) and "pytest" in tool
        assert r["may_hold_pytest"](text) or not has, text
        told += not r["may_hold_pytest"](text)
    assert told > 100


_CONFIGS = {"pytest.toml": ["", "[pytest]\nk = ['v']\n"], ".pytest.toml": ["[pytest]\n"],
            "pytest.ini": ["", "[pytest]\nk = v\n"], ".pytest.ini": ["", "[pytest]\nk = w\n"],
            "pyproject.toml": ["[tool.black]\n", '[tool.pytest.ini_options]\nk = "v"\n',
                               "[tool.pytest]\nk = ['v']\n",
                               "[tool.pytest]\nk = ['v']\n[tool.pytest.ini_options]\n"],
            "tox.ini": ["[tox]\n", "[pytest]\nk = v\n"],
            "setup.cfg": ["[metadata]\n", "[tool:pytest]\nk = v\n", "[pytest]\n"],
            "setup.py": [""]}


def _tree(root: Path, rng: random.Random) -> tuple[Path, list[str]]:
    """A random project of config files on three levels: (working directory, pytest's args)."""
    files = {"a/b/t.py": ""}
    for folder in ("", "a/", "a/b/"):
        for name in rng.sample(sorted(_CONFIGS), rng.randint(0, 2)):
            files[folder + name] = rng.choice(_CONFIGS[name])
    write_files(root, files)
    args = rng.sample(["a", "a/b", str(root / "a/b/t.py"), ".", "x", "b::t"], rng.randint(0, 2))
    return root / rng.choice(["", "a"]), args + rng.choice([[], ["-k", "b"], ["--junitxml", "a"]])


def _pytest_finds(cwd: Path, args: list[str], parser: Any) -> Any:
    with mock.patch("os.getcwd", return_value=str(cwd)):
        try:
            rootdir, ini, cfg, _ = determine_setup(
                inifile=None, override_ini=None, rootdir_cmd_arg=None, invocation_dir=cwd,
                args=parser.parse_known_args(args).file_or_dir)
        except (UsageError, Failed):
            return "cannot"
    return str(rootdir), ini and str(ini), {k: v.value for k, v in cfg.items()}


def test_the_config_is_found_where_pytest_finds_it(tmp_path: Path) -> None:
    r, rng, parser, seen = _runner(), random.Random(0), get_config()._parser, set()
    for n in range(200):
        cwd, args = _tree(tmp_path / str(n), rng)
        try:
            got = r["config"](str(cwd), args, (9, 2))
        except r["Unrunnable"]:
            got = "cannot"
        want = _pytest_finds(cwd, args, parser)
        # Where pytest stops with an error, no grade passed for the re-run to look at again.
        assert got == want or want == "cannot", (cwd, args)
        seen.add(want if want == "cannot" else Path(want[1] or "-").name)
    assert seen >= {*_CONFIGS} - {"setup.py"} | {"-", "cannot"}, seen


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
