"""The harness's own minimal test runner: the second look at a pytest grade (Python 3.6+).

Run after the graded pytest run, in a fresh interpreter of its own exec (every process of the
pytest run is gone by then), on the FAIL_TO_PASS tests and their canaries. No pytest runner, no
plugin, no hook: it imports each test file the way pytest's default import mode does, runs the
conftest fixtures and xunit setups the test needs, and calls the test. Where a test needs what
only pytest provides (a hook of the repository's conftest, a plugin, `request`, `capsys`, an
`xfail` mark, a parametrization whose ids it cannot rebuild) it says so ("unrunnable") rather
than guess. While a test runs, `pytest` is not in `sys.modules`.

One line per test goes to the exec's output (fd 1, kept before anything of the repository is
imported; what tests print goes nowhere): `@@evaluator-rerun <nonce> {"id", "status", "why"}`.

It starts in a fresh interpreter on every grade whose FAIL_TO_PASS tests passed, so what it
imports itself is built in (and `types`, and pytest's `_pytest._version`); the rest only where
a test or a config file needs it: `inspect` (with `ast`, `dis`, `tokenize`, `enum`), `json`,
`re` and `configparser` cost more than the rest of the run (`tomllib` imports `re`: only a TOML
file that may hold pytest's options is parsed). A plain function's parameters are read from
its code object as `inspect.signature` reads them (a wrapped or partial callable, or one with
`__signature__`, goes to `inspect` itself); the conf and the lines go through json's C half;
ini files are read as pytest reads them (iniconfig's rules).

pytest's config is found as the task's pytest finds it (its version read from
`_pytest._version`): upward from the common folder of the test paths on its command line, by
pytest's precedence in each folder (pytest.toml and .pytest.toml from pytest 9, pytest.ini,
.pytest.ini, pyproject.toml with its table, tox.ini and setup.cfg with their sections); the
test ids are its rootdir's, and no conftest above its confcutdir loads. TOML goes through
`tomllib`; a Python without it (before 3.11) makes the re-run unrunnable where a file it must
read is TOML.
"""

import itertools
import os
import sys
import types

try:
    from _json import encode_basestring_ascii as _quoted
    from _json import make_scanner as _make_scanner
except ImportError:  # an interpreter without json's C half (PyPy): the pure-Python one
    from json.decoder import JSONDecoder as _Decoder
    from json.encoder import encode_basestring_ascii as _quoted
    _make_scanner = None  # type: ignore[assignment,misc]


def _loads(text):
    """json.loads of the conf (strings, lists, dicts), through json's own C scanner."""
    if _make_scanner is None:
        return _Decoder().decode(text)

    class Context(object):
        strict, object_hook, object_pairs_hook, memo = True, None, None, {}
        parse_float, parse_int, parse_constant = float, int, float
    value, end = _make_scanner(Context())(text, 0)  # type: ignore[arg-type]
    if text[end:].strip():
        raise ValueError("extra data after the conf")
    return value


def _dumps(record):
    """json.dumps of a record of strings and ints (ASCII, as json.dumps writes by default)."""
    return "{%s}" % ", ".join("%s: %s" % (_quoted(k), v if isinstance(v, int) else _quoted(v))
                              for k, v in record.items())


CONF = {}  # type: dict # set by main(), as are OUT (the exec's fd 1) and sys.argv
OUT = -1
CUT = None  # pytest's confcutdir: no conftest above it loads (None: every one does)
SAFE_HOOKS = ("pytest_addoption", "pytest_report_header", "pytest_collection_modifyitems",
              "pytest_ignore_collect", "pytest_terminal_summary", "pytest_collection_finish",
              "pytest_deselected", "pytest_itemcollected", "pytest_sessionfinish",
              "pytest_unconfigure", "pytest_report_teststatus")


class Unrunnable(Exception):
    pass


def user(func, *args, **kwargs):
    """Call code of the repository: whatever it raises is its outcome, never this runner's
    "cannot run" (code under test could raise that class to hide a failure)."""
    try:
        return func(*args, **kwargs)
    except Unrunnable as exc:
        raise RuntimeError("Unrunnable raised by the code under test: %s" % exc) from None


def emit(record):
    os.write(OUT, ("@@evaluator-rerun %s %s\n" % (CONF["nonce"], _dumps(record))).encode())


_SPECIAL = ("__wrapped__", "__signature__", "_partialmethod", "__partialmethod__",
            "_is_coroutine_marker")
_CO_VARARGS, _CO_VARKEYWORDS, _CO_COROUTINE = 0x04, 0x08, 0x80


def _inspect():
    import inspect
    return inspect


def _plain(func):
    """The function of a plain function or method (one inspect reads from its code object
    alone), else None."""
    while isinstance(func, types.MethodType):
        func = func.__func__
    if not isinstance(func, types.FunctionType) or any(a in func.__dict__ for a in _SPECIAL):
        return None
    return func


def params(func):
    """[(name, kind, has_default)] of `inspect.signature(func)`, kind as inspect names it;
    ValueError or TypeError where inspect raises them."""
    f = _plain(func)
    if f is None:
        return [(p.name, p.kind.name, p.default is not p.empty)
                for p in _inspect().signature(func).parameters.values()]
    code = f.__code__
    npos, nkw = code.co_argcount, code.co_kwonlyargcount
    names, defaults = code.co_varnames, f.__defaults__ or ()
    nposonly = getattr(code, "co_posonlyargcount", 0)
    out = [(n, "POSITIONAL_ONLY" if i < nposonly else "POSITIONAL_OR_KEYWORD",
            i >= npos - len(defaults)) for i, n in enumerate(names[:npos])]
    if code.co_flags & _CO_VARARGS:
        out.append((names[npos + nkw], "VAR_POSITIONAL", False))
    kwdefaults = f.__kwdefaults__ or {}
    out.extend((n, "KEYWORD_ONLY", n in kwdefaults) for n in names[npos:npos + nkw])
    if code.co_flags & _CO_VARKEYWORDS:
        out.append((names[npos + nkw + bool(code.co_flags & _CO_VARARGS)], "VAR_KEYWORD", False))
    if isinstance(func, types.MethodType):  # bound: the first parameter is taken
        if not out or out[0][1] in ("VAR_KEYWORD", "KEYWORD_ONLY"):
            raise ValueError("invalid method signature")
        if out[0][1] != "VAR_POSITIONAL":
            out = out[1:]
    return out


def is_coroutine_function(func):
    f = _plain(func)
    if f is None:
        return _inspect().iscoroutinefunction(func)
    return bool(f.__code__.co_flags & _CO_COROUTINE)


def last_line(exc):
    import traceback
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def fixture_of(obj):
    """(marker, function) where `obj` is a pytest fixture (pytest 3 to 9), else None."""
    if not (isinstance(obj, (types.FunctionType, types.MethodType))
            or type(obj).__name__ == "FixtureFunctionDefinition"):
        return None
    marker = getattr(obj, "_pytestfixturefunction", None) or getattr(
        obj, "_fixture_function_marker", None)
    if marker is None:
        return None
    func = getattr(obj, "_fixture_function", None)
    if func is None:
        wrapped = getattr(obj, "__pytest_wrapped__", None)
        func = wrapped.obj if wrapped is not None else obj
    return marker, func


def argnames(func, skip_first=False):
    try:
        found = params(func)
    except (TypeError, ValueError):
        return []
    patched = [p for p in getattr(func, "patchings", [])
               if not getattr(p, "attribute_name", None)
               and type(getattr(p, "new", None)).__name__ == "_SentinelObject"]
    names = [name for name, kind, default in found if not default
             and kind in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")]
    return names[(1 if skip_first else 0) + len(patched):]


def import_file(path, name_hint=None):
    """pytest's `prepend` import: the first folder above without `__init__.py` goes first on
    sys.path; the module is named by its packages from there."""
    path = os.path.abspath(path)
    root = os.path.dirname(path)
    while os.path.isfile(os.path.join(root, "__init__.py")):
        root = os.path.dirname(root)
    parts = os.path.relpath(path, root)[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts.pop()
    name = ".".join(parts)
    if not sys.path or sys.path[0] != root:
        sys.path.insert(0, root)
    if name == "conftest" or name_hint == "conftest":
        sys.modules.pop(name, None)
    user(__import__, name)
    mod = sys.modules[name]
    if os.path.abspath(getattr(mod, "__file__", "") or "") != path:
        raise Unrunnable("%s imports as %s, which is another file" % (path, name))
    return mod


def _harmless_configure(func):
    # Registering markers is what most conftest `pytest_configure` hooks do; nothing else is.
    import ast
    try:
        tree = ast.parse(_inspect().getsource(func).strip())
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else []
    for st in body:
        call = getattr(st, "value", None)
        if isinstance(st, ast.Expr) and isinstance(call, ast.Constant if hasattr(ast, "Constant")
                                                   else ast.Str):
            continue
        if not (isinstance(st, ast.Expr) and isinstance(call, ast.Call)
                and getattr(call.func, "attr", "") == "addinivalue_line"):
            return False
    return True


def conftests(test_file):
    """The conftests pytest loads for a test file: one in each folder above it, but in none
    above the conftest cut."""
    above = set(ancestors(CUT)[1:]) if CUT else set()
    chain = [f for f in ancestors(os.path.dirname(os.path.abspath(test_file))) if f not in above]
    mods = []
    for folder in reversed(chain):
        path = os.path.join(folder, "conftest.py")
        if not os.path.isfile(path):
            continue
        mod = import_file(path, "conftest")
        if getattr(mod, "pytest_plugins", None):
            raise Unrunnable("%s loads plugins (pytest_plugins)" % os.path.relpath(path))
        for attr in dir(mod):
            hook = getattr(mod, attr, None)
            if attr.startswith("pytest_") and callable(hook) and attr not in SAFE_HOOKS and not (
                    attr == "pytest_configure" and _harmless_configure(hook)):
                raise Unrunnable("%s has the hook %s, which only pytest runs"
                                 % (os.path.relpath(path), attr))
        mods.append(mod)
    return mods


class Fixtures(object):
    """Fixture values by name for one test, from its class, its module and its conftests."""

    def __init__(self, places, cache):
        self.places, self.cache, self.finalizers, self.values = places, cache, [], {}

    def find(self, name):
        for place in self.places:
            for attr in dir(place):
                found = fixture_of(getattr(place, attr, None))
                if found and (getattr(found[0], "name", None) or attr) == name:
                    return found
        return None

    def autouse(self):
        names = []
        for place in reversed(self.places):
            for attr in dir(place):
                found = fixture_of(getattr(place, attr, None))
                if found and getattr(found[0], "autouse", False):
                    names.append(getattr(found[0], "name", None) or attr)
        return names

    def get(self, name, stack=()):
        if name in self.values:
            return self.values[name]
        if name in stack:
            raise Unrunnable("fixture %s depends on itself" % name)
        found = self.find(name)
        if found is None:
            self.values[name] = self.builtin(name)
            return self.values[name]
        marker, func = found
        if getattr(marker, "params", None):
            raise Unrunnable("fixture %s is parametrized" % name)
        scope = getattr(marker, "scope", "function")
        if callable(scope):
            raise Unrunnable("fixture %s has a dynamic scope" % name)
        if scope != "function" and name in self.cache:
            self.values[name] = self.cache[name][0]
            return self.values[name]
        args = argnames(func)
        if "request" in args:
            raise Unrunnable("fixture %s needs `request`" % name)
        kwargs = dict((a, self.get(a, stack + (name,))) for a in args)
        value = user(func, **kwargs)
        if isinstance(value, types.GeneratorType):
            gen, value = value, user(next, value)
            if scope == "function":
                self.finalizers.append(gen)
            else:
                self.cache[name] = (value, gen)
        elif scope != "function":
            self.cache[name] = (value, None)
        self.values[name] = value
        return value

    def builtin(self, name):
        if name == "tmp_path":
            import pathlib
            import shutil
            import tempfile
            path = tempfile.mkdtemp(prefix="rerun-")
            self.finalizers.append(lambda: shutil.rmtree(path, ignore_errors=True))
            return pathlib.Path(path)
        if name == "monkeypatch":
            from _pytest.monkeypatch import MonkeyPatch
            mp = MonkeyPatch()
            self.finalizers.append(mp.undo)
            return mp
        raise Unrunnable("the test needs the fixture %r, which only pytest provides" % name)

    def teardown(self):
        for fin in reversed(self.finalizers):
            if isinstance(fin, types.GeneratorType):
                for _ in fin:
                    raise RuntimeError("a fixture yields twice")
            else:
                fin()


def marks_of(*objs):
    out = []
    for obj in objs:
        found = getattr(obj, "pytestmark", [])
        for m in found if isinstance(found, list) else [found]:
            out.append(getattr(m, "mark", m))
    return out


def _escaped(text):
    if isinstance(text, bytes):
        text = text.decode("ascii", "backslashreplace")
    else:
        text = text.encode("unicode_escape").decode("ascii")
    return "".join(c if 32 <= ord(c) < 127 else repr(c)[1:-1] for c in text)


def value_id(value, argname, index):
    """What pytest names a parameter value in a test id (pytest 7-9)."""
    import enum
    import re
    if isinstance(value, (str, bytes)):
        if len(value) > 100:
            raise Unrunnable("a long string parameter (its id depends on pytest's settings)")
        return _escaped(value)
    if value is None or isinstance(value, (float, int, bool, complex)):
        return str(value)
    if isinstance(value, type(re.compile(""))):
        return _escaped(value.pattern)
    if isinstance(value, enum.Enum):
        return str(value)
    if isinstance(getattr(value, "__name__", None), str):
        return value.__name__
    return "%s%d" % (argname, index)


def cases(mark):
    """[(id, {argname: value}, marks)] of one parametrize mark."""
    args, kw = list(mark.args), dict(mark.kwargs)
    names = args[0] if args else kw.get("argnames")
    values = args[1] if len(args) > 1 else kw.get("argvalues")
    if kw.get("indirect") or names is None or values is None:
        raise Unrunnable("an indirect or unusual parametrization")
    names = [n.strip() for n in names.split(",") if n.strip()] if isinstance(names, str) else list(
        names)
    ids = kw.get("ids", args[2] if len(args) > 2 else None)
    out = []
    for i, value in enumerate(list(values)):
        marks, given = [], None
        if type(value).__name__ == "ParameterSet":
            value, marks, given = value.values, list(value.marks), value.id
        elif len(names) == 1:
            value = (value,)
        value = tuple(value)
        if given is None and ids is not None:
            given = ids(value[0] if len(names) == 1 else value) if callable(ids) else list(ids)[i]
            if given is not None and not isinstance(given, str):
                given = value_id(given, "", i)
        if given is None:
            given = "-".join(value_id(v, n, i) for v, n in zip(value, names))
        out.append((given, dict(zip(names, value)), marks))
    return out


def case_for(marks, suffix):
    params = [m for m in marks if m.name == "parametrize"]
    if not params:
        if suffix:
            raise Unrunnable("a parametrized id without a parametrize mark it can read")
        return {}, []
    combos = []
    for parts in itertools.product(*[cases(m) for m in params]):
        combos.append(("-".join(p[0] for p in parts),
                       dict(kv for p in parts for kv in p[1].items()),
                       [m for p in parts for m in p[2]]))
    found = [c for c in combos if c[0] == suffix[1:-1]]
    if len(found) != 1 or len(set(c[0] for c in combos)) != len(combos):
        raise Unrunnable("its parametrized id cannot be rebuilt here")
    return found[0][1], found[0][2]


def check_marks(marks):
    for m in marks:
        if m.name == "skip":
            return "skipped"
        if m.name == "skipif":
            conditions = list(m.args)
            if any(isinstance(c, str) for c in conditions):
                raise Unrunnable("a skipif condition written as a string")
            if any(conditions):
                return "skipped"
        if m.name in ("xfail", "filterwarnings"):
            raise Unrunnable("an %s mark" % m.name)
    return None


def call_hidden(func, *args, **kwargs):
    """Call a test with `pytest` absent from sys.modules, as it is outside a test run."""
    saved = sys.modules.pop("pytest", None)
    try:
        return user(func, *args, **kwargs)
    finally:
        if saved is not None:
            sys.modules["pytest"] = saved


def outcome_of(exc):
    name = type(exc).__name__
    if name == "Skipped" or (name == "SkipTest" and "unittest" in type(exc).__module__):
        return "skipped"
    return "failed"


def run_unittest(cls, name, fixtures):
    import unittest
    result = unittest.TestResult()
    call_hidden(cls(name).run, result)
    if result.errors or result.failures or getattr(result, "unexpectedSuccesses", None):
        bad = (result.errors or result.failures or [(cls, "unexpected success")])[0][1]
        return "failed", bad.strip().splitlines()[-1][:300]
    if result.skipped or result.expectedFailures:
        return "skipped", ""
    return ("passed", "") if result.testsRun == 1 else ("error", "the test did not run")


def xunit(obj, names, arg):
    for name in names:
        func = getattr(obj, name, None)
        if callable(func) and fixture_of(func) is None:
            try:
                nargs = len(params(func))
            except (TypeError, ValueError):
                nargs = 1
            return user(func, arg) if nargs else user(func)
    return None


def run_one(mod, confs, state, classes, name, suffix):
    owner = mod
    for cname in classes:
        owner = getattr(owner, cname)
    func = getattr(owner, name)
    is_unittest = bool(classes) and any(b.__name__ == "TestCase" and b.__module__.startswith(
        "unittest") for b in owner.__mro__)
    marks = marks_of(func, *([owner] if classes else []), mod)
    skipped = check_marks(marks)
    kwargs, case_marks = case_for(marks, suffix)
    if skipped or check_marks(case_marks):
        return "skipped", ""
    instance = None if (not classes or is_unittest) else user(owner)
    places = ([instance] if instance is not None else []) + [mod] + list(reversed(confs))
    fx = Fixtures(places, state["cache"].setdefault(classes, {}))
    if is_unittest and any(fixture_of(getattr(owner, a, None)) for a in dir(owner)):
        raise Unrunnable("a unittest class with pytest fixtures")
    try:
        if classes and not is_unittest and classes not in state["classes"]:
            state["classes"].add(classes)
            xunit(owner, ("setup_class",), owner)
            state["teardown"].append(lambda: xunit(owner, ("teardown_class",), owner))
        wanted = [m.args for m in marks if m.name == "usefixtures"]
        for fname in state["usefixtures"] + fx.autouse() + [a for args in wanted for a in args]:
            fx.get(fname)
        bound = getattr(instance, name) if instance is not None else func
        args = {} if is_unittest else dict(
            (a, kwargs[a] if a in kwargs else fx.get(a)) for a in argnames(bound))
        if instance is not None:
            xunit(instance, ("setup_method",), bound)
        elif not classes:
            xunit(mod, ("setup_function",), func)
    except Unrunnable:
        raise
    except BaseException as exc:
        fx.teardown()
        return "error", "setup: %s: %s" % (type(exc).__name__, str(exc)[:300])
    if not is_unittest and is_coroutine_function(bound):
        raise Unrunnable("an async test")
    try:
        if is_unittest:
            result = run_unittest(owner, name, fx)
        else:
            call_hidden(bound, **args)
            result = ("passed", "")
    except BaseException as exc:
        result = (outcome_of(exc), last_line(exc)[:300])
    try:
        if instance is not None:
            xunit(instance, ("teardown_method",), bound)
        elif not classes:
            xunit(mod, ("teardown_function",), func)
        fx.teardown()
    except BaseException as exc:
        if result[0] == "passed":
            result = ("error", "teardown: %s: %s" % (type(exc).__name__, str(exc)[:300]))
    return result


def attempt(mod, confs, state, test_id):
    _, classes, name, suffix = parse_id(test_id)
    try:
        return run_one(mod, confs, state, classes, name, suffix)
    except Unrunnable as exc:
        return "unrunnable", str(exc)
    except BaseException as exc:
        return "error", "%s: %s" % (type(exc).__name__, str(exc)[:300])


def parse_id(test_id):
    path, _, rest = test_id.partition("::")
    parts = rest.split("::")
    name, bracket, tail = parts[-1].partition("[")
    return path, tuple(parts[:-1]), name, bracket + tail


def run_file(path, ids, usefixtures):
    state = {"cache": {}, "classes": set(), "teardown": [], "usefixtures": usefixtures}
    try:
        if not os.path.isfile(path):
            raise Unrunnable("no file %s under pytest's rootdir" % path)
        confs = conftests(path)
        mod = import_file(path)
        xunit(mod, ("setup_module", "setUpModule"), mod)
    except Unrunnable as exc:
        for t in ids:
            emit({"id": t, "status": "unrunnable", "why": str(exc)})
        return
    except BaseException as exc:
        line = last_line(exc)[:300]
        for t in ids:
            emit({"id": t, "status": "error", "why": "import: " + line})
        return
    for t in ids:
        status, why = attempt(mod, confs, state, t)
        emit({"id": t, "status": status, "why": why})
    for fin in reversed(state["teardown"]):
        try:
            fin()
        except BaseException:
            pass


# The config files pytest finds by name, in its order of precedence, each from the pytest
# version that reads it (_pytest/config/findpaths.py): pytest.toml and .pytest.toml in 9.0,
# .pytest.ini in 7.2, pyproject.toml in 6.0 (as a config of its own, tableless, in 8.1).
CONFIG_FILES = (("pytest.toml", (9, 0)), (".pytest.toml", (9, 0)), ("pytest.ini", (0, 0)),
                (".pytest.ini", (7, 2)), ("pyproject.toml", (6, 0)), ("tox.ini", (0, 0)),
                ("setup.cfg", (0, 0)))
# pytest's own options that take the next word as their value (pytest 9's parser): that word
# is no test path to find the config from.
VALUED = frozenset((
    "--assert", "--basetemp", "--cache-show", "--capture", "--code-highlight", "--color",
    "--confcutdir", "--config-file", "--debug", "--deselect", "--doctest-glob",
    "--doctest-report", "--durations", "--durations-min", "--ignore", "--ignore-glob",
    "--import-mode", "--junit-prefix", "--junit-xml", "--junitprefix", "--junitxml",
    "--last-failed-no-failures", "--lfnf", "--log-auto-indent", "--log-cli-date-format",
    "--log-cli-format", "--log-cli-level", "--log-date-format", "--log-disable", "--log-file",
    "--log-file-date-format", "--log-file-format", "--log-file-level", "--log-file-mode",
    "--log-format", "--log-level", "--max-warnings", "--maxfail", "--override-ini", "--pastebin",
    "--pdbcls", "--pythonwarnings", "--report-chars", "--rootdir", "--show-capture", "--tb",
    "--verbosity", "-W", "-c", "-k", "-m", "-o", "-p", "-r"))


def pytest_version():
    """(major, minor) of the pytest the task runs: the one this interpreter imports."""
    try:
        from _pytest._version import version
    except Exception:
        raise Unrunnable("cannot tell which pytest the task runs (no _pytest._version)") from None
    out = []
    for part in (str(version).split(".") + ["0"])[:2]:
        digits = ""
        for c in part:
            if not c.isdigit():
                break
            digits += c
        out.append(int(digits or "0"))
    return tuple(out)


def split_words(text):
    """shlex.split, which pytest reads `args` and `paths` options with; plain words without
    importing shlex."""
    if not any(c in text for c in "'\"\\"):
        return text.split()
    import shlex
    return shlex.split(text)


def arg_dirs(cwd, words):
    """The folders of the test paths among the words, as pytest finds its config from them."""
    dirs, valued = [], False
    for w in words:
        if valued or w.startswith("-"):
            valued = not valued and w in VALUED
            continue
        path = os.path.abspath(os.path.join(cwd, w.partition("::")[0]))
        if os.path.exists(path):
            dirs.append(path if os.path.isdir(path) else os.path.dirname(path))
    return dirs


def config(cwd, words, version):
    """(rootdir, config file or None, its options) as pytest determines them from the words of
    its command line (its args and PYTEST_ADDOPTS'): found upward from the common folder of
    the test paths; else a setup.py's folder; else found upward from each path."""
    dirs = arg_dirs(cwd, words)
    ancestor = os.path.commonpath(dirs) if dirs else cwd
    path, cfg = locate([ancestor], version)
    if path is not None:
        return os.path.dirname(path), path, cfg
    for folder in ancestors(ancestor):
        if os.path.isfile(os.path.join(folder, "setup.py")):
            return folder, None, {}
    if dirs != [ancestor]:
        path, cfg = locate(dirs, version)
        if path is not None:
            return os.path.dirname(path), path, cfg
    root = os.path.commonpath([cwd, ancestor])
    return (ancestor if root == os.sep else root), None, {}


def ancestors(folder):
    """The folder and every folder above it, innermost first."""
    out = [folder]
    while os.path.dirname(out[-1]) != out[-1]:
        out.append(os.path.dirname(out[-1]))
    return out


def locate(dirs, version):
    """(path, options) of the first config file upward of each folder, by pytest's precedence
    in each folder; a pyproject.toml seen on the way where there is none (pytest 8.1)."""
    pyproject = None
    for start in dirs:
        for folder in ancestors(start):
            for name, since in CONFIG_FILES:
                path = os.path.join(folder, name)
                if version < since or not os.path.isfile(path):
                    continue
                if name == "pyproject.toml" and pyproject is None:
                    pyproject = path
                cfg = load_config(path, name, version)
                if cfg is not None:
                    return path, cfg
    return (pyproject, {}) if pyproject is not None and version >= (8, 1) else (None, {})


def load_config(path, name, version):
    """{option: str or list} of a config file read as pytest reads it; None where pytest
    passes it by (a tox.ini without [pytest], a pyproject.toml without its table)."""
    with open(path, "rb") as f:
        data = f.read()
    if name.endswith(".toml"):
        return load_toml(path, name, data, version)
    sections = ini_sections(data.decode("utf-8", "replace"), name)
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    if section in sections:
        return sections[section]
    if name == "setup.cfg" and "pytest" in sections:
        raise Unrunnable("pytest refuses the [pytest] section of %s" % path)
    return {} if name == "pytest.ini" or (name == ".pytest.ini" and version >= (9, 0)) else None


def load_toml(path, name, data, version):
    if name == "pyproject.toml" and not may_hold_pytest(data.decode("utf-8", "replace")):
        return None  # without importing tomllib (and re, datetime) on most repositories
    try:
        import tomllib
    except ImportError:
        raise Unrunnable("%s needs a TOML reader, which this Python (before 3.11) lacks"
                         % path) from None
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except ValueError as exc:  # TOMLDecodeError and UnicodeDecodeError alike
        raise Unrunnable("pytest cannot read %s: %s" % (path, exc)) from None
    if name != "pyproject.toml":
        if "pytest" not in doc:
            if any(not isinstance(v, dict) for v in doc.values()):
                raise Unrunnable("pytest refuses %s: options outside its [pytest] table" % path)
            return {}
        return native(path, doc["pytest"])
    tool = doc.get("tool", {})
    table = tool.get("pytest", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise Unrunnable("pytest cannot read %s: tool.pytest is no table" % path)
    ini = table.get("ini_options")
    own = dict((k, v) for k, v in table.items() if k != "ini_options") if version >= (9, 0) else {}
    if own and ini:
        raise Unrunnable("pytest refuses %s: [tool.pytest] and [tool.pytest.ini_options] both"
                         % path)
    if own:
        return native(path, own)
    if ini is None:
        return None
    if not isinstance(ini, dict):
        raise Unrunnable("pytest cannot read %s: tool.pytest.ini_options is no table" % path)
    return dict((k, v if isinstance(v, list) else str(v)) for k, v in ini.items())


def native(path, table):
    """A table read in pytest 9's TOML mode: the options this runner reads must be lists of
    strings there (pytest refuses anything else)."""
    if not isinstance(table, dict):
        raise Unrunnable("pytest cannot read %s: its pytest table is no table" % path)
    for key in ("addopts", "pythonpath", "usefixtures", "filterwarnings"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise Unrunnable("pytest refuses %s: %s is not a list of strings" % (path, key))
    return table


def may_hold_pytest(text):
    """Whether a TOML document may hold a table `tool.pytest`, read without a TOML parser: a
    table header or a key (before its `=`) that names `pytest` or has an escape (which could),
    or a key `tool` (its value an inline table). Never False where it does."""
    for line in text.split("\n"):  # TOML's lines (splitlines breaks at more than TOML does)
        s = line.strip()
        if s.startswith("["):
            if "pytest" in s or "\\" in s:
                return True
            continue
        key = key_of(s)
        if key is not None and (key == ["tool"] or any("pytest" in k or "\\" in k for k in key)):
            return True
    return False


def key_of(line):
    """The parts of the key a TOML `key = value` line starts with, else None."""
    parts, i, n = [], 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] in "\"'":
            end = line.find(line[i], i + 1)
            if end < 0:
                return None
            parts.append(line[i + 1:end])  # one ended by an escaped quote ends in `\`
            i = end + 1
        else:
            j = i
            while j < n and (line[j].isalnum() or line[j] in "_-"):
                j += 1
            if j == i:
                return None
            parts.append(line[i:j])
            i = j
        while i < n and line[i] in " \t":
            i += 1
        if i < n and line[i] == ".":
            i += 1
            continue
        return parts if i < n and line[i] == "=" else None


def ini_sections(text, name):
    """{section: {key: value}} of an ini file read as pytest reads it (iniconfig, not
    configparser: `key = value` or `key: value`, indented lines continue a value, lines that
    start with `#` or `;` are comments, nothing stripped from inside a line)."""
    sections = {}  # type: dict
    current, values = None, None
    text = text[1:] if text.startswith("\ufeff") else text
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip()[:1] in ("#", ";"):
            continue
        line = line.rstrip()
        if not line:
            continue
        head = line
        for c in "#;":
            head = head.split(c)[0].rstrip()
        if line[0] == "[" and head[-1] == "]":
            if head[1:-1] in sections or not head[1:-1]:
                raise Unrunnable("pytest cannot read %s (line %d)" % (name, number))
            current, values = sections.setdefault(head[1:-1], {}), None
        elif line[0] != "[" and not line[0].isspace():
            key, eq, value = line.partition("=")
            if not eq or ":" in key:
                key, eq, value = line.partition(":")
            if not eq or current is None or key.strip() in current:
                raise Unrunnable("pytest cannot read %s (line %d)" % (name, number))
            values = [value.strip()] if value.strip() else []
            current[key.strip()] = values
        elif values is None:
            raise Unrunnable("pytest cannot read %s (line %d)" % (name, number))
        else:
            values.append(line.strip())
    return dict((sec, dict((k, "\n".join(v)) for k, v in body.items()))
                for sec, body in sections.items())


def overrides(words):
    """{option: value} of the `-o option=value` words (pytest's --override-ini)."""
    out = {}
    for i, w in enumerate(words):
        if w in ("-o", "--override-ini"):
            given = words[i + 1] if i + 1 < len(words) else ""
        elif w.startswith("--override-ini="):
            given = w[len("--override-ini="):]
        elif w.startswith("-o") and not w.startswith("--"):
            given = w[2:]
        else:
            continue
        key, eq, value = given.partition("=")
        if not eq:
            raise Unrunnable("pytest refuses -o %s (no `=`)" % given)
        out[key.strip()] = value
    return out


def as_words(value):
    return split_words(value) if isinstance(value, str) else list(value)


def options(cwd, args):
    """(rootdir, conftest cut, pythonpath, usefixtures) for the run, or Unrunnable where
    pytest's options would make a test behave in a way this runner does not reproduce."""
    env = os.environ.get("PYTEST_ADDOPTS", "")
    first = (split_words(env) if env.strip() else []) + list(args)
    version = pytest_version()
    rootdir, path, ini = config(cwd, first, version)
    ini = dict(ini)
    ini.update(overrides(first))
    added = as_words(ini.get("addopts", []))
    # -o in addopts: pytest 9 applies it (one level), pytest 8 does not.
    if set(overrides(added)) & {"pythonpath", "usefixtures", "filterwarnings"}:
        raise Unrunnable("the config's addopts override its own options (-o)")
    words = added + first
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "-p" and not nxt.startswith("no:") or (w.startswith("-p") and len(w) > 2
                                                        and not w[2:].startswith("no:")):
            raise Unrunnable("the run loads a pytest plugin (%s)" % (nxt if w == "-p" else w))
        if w.startswith("--import-mode") and "prepend" not in (w + nxt):
            raise Unrunnable("the run imports tests with %s" % w)
        if w in ("-W", "--pythonwarnings") and nxt.startswith("error") or w.startswith("-Werror"):
            raise Unrunnable("the run turns warnings into errors")
        if w in ("-c", "--rootdir", "--config-file", "--confcutdir") or w.startswith("--rootdir"):
            raise Unrunnable("the run sets pytest's rootdir or config (%s)" % w)
    lines = ini.get("filterwarnings", [])
    if isinstance(lines, str):
        lines = lines.split("\n")
    if any(line.strip().startswith("error") for line in lines):
        raise Unrunnable("the repository's pytest config turns warnings into errors")
    base = os.path.dirname(path) if path else cwd  # pytest's `paths` are the config file's
    # Without a config file, pytest before 7.4 loads conftests all the way up.
    cut = os.path.dirname(path) if path else rootdir if version >= (7, 4) else None
    return (rootdir, cut, [os.path.join(base, p) for p in as_words(ini.get("pythonpath", []))],
            as_words(ini.get("usefixtures", [])))


def main():
    global OUT, CUT
    CONF.update(_loads(sys.argv[1]))
    del sys.argv[1:]
    OUT = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    root = os.getcwd()
    reason = CONF.get("unrunnable") or ""
    rootdir, pythonpath, usefixtures = root, [], []
    # Off the path before pytest's version is read: `python -c` before 3.11 puts the
    # working directory first, where a patch could add a `_pytest` of its own.
    sys.path[:] = [p for p in sys.path if p not in ("", ".", root)]
    try:
        rootdir, CUT, pythonpath, usefixtures = options(root, CONF.get("args", []))
    except Unrunnable as exc:
        reason = reason or str(exc)
    sys.path[:] = pythonpath + sys.path + [root]
    by_file = {}  # type: dict
    for t in CONF["tests"]:
        by_file.setdefault(parse_id(t)[0], []).append(t)
    for path in sorted(by_file):
        if reason:
            for t in by_file[path]:
                emit({"id": t, "status": "unrunnable", "why": reason})
            continue
        run_file(os.path.join(rootdir, path), by_file[path], usefixtures)
    emit({"done": len(CONF["tests"])})


if __name__ == "__main__":
    main()
