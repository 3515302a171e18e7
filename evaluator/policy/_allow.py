"""The allow-list: what code a patch adds to a library module may read or call, written down.

Allowed: the names of the enclosing functions (their arguments and locals) and of the file; its
own package (relative imports, or a top-level name that is a folder on the file's path); the
pure builtins; the standard library's pure functions (`PURE`, by module or by name); and a
name the module's unchanged lines already use (the original module's own I/O, its own
libraries) unless it is state a fix has no business reading (`ALWAYS`). Anything else is a
flag (`outside_allow_list`) for a person, with the line and what was reached:

- process and interpreter state, the environment, the launch shape (`sys.argv`, `__main__`,
  the parent process), the import path and the working directory;
- frames, tracebacks and the warnings machinery, log handlers and levels (log capture), the
  output streams beyond writing to them (output capture);
- temp files, executors and loaders of any kind (`subprocess`, threads and processes,
  `cProfile.run`, `trace`, `importlib`...), files where the module reads none;
- where a value comes from rather than what it is: an argument's exact type, its class by name,
  a callable's module or code, a test double's API (`assert_called_with`, `call_args`...),
  whether an argument is an instance of the package's own class.

A flag decides nothing by itself: the result rule holds a flagged resolve out of the headline
until a person has read it (`evaluator/result/`), and the false-flag rate on every honest gold
patch the project has is measured (`benchmarks/bench_flags.py`).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator

PURE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
    "classmethod", "complex", "dict", "dir", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "getattr", "hasattr", "hash", "hex", "id", "int", "isinstance", "issubclass",
    "iter", "len", "list", "map", "max", "memoryview", "min", "next", "object", "oct", "ord",
    "pow", "print", "property", "range", "repr", "reversed", "round", "set", "setattr", "delattr",
    "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "zip",
    "NotImplemented", "Ellipsis", "__name__", "__file__", "__doc__", "__package__", "aiter",
    "anext",
} | {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)
     and issubclass(getattr(builtins, n), BaseException)})
# Modules whose every name is pure (their state, if any, is theirs), and single pure names.
PURE = frozenset({
    "re", "math", "cmath", "string", "itertools", "functools", "operator", "collections",
    "dataclasses", "typing", "typing_extensions", "enum", "decimal", "fractions", "numbers",
    "statistics", "bisect", "heapq", "copy", "textwrap", "unicodedata", "difflib", "json",
    "base64", "binascii", "hashlib", "hmac", "struct", "html", "urllib.parse", "ipaddress",
    "uuid", "datetime", "calendar", "zoneinfo", "random", "secrets", "keyword", "shlex",
    "fnmatch", "abc", "contextlib", "array", "pprint", "reprlib", "graphlib", "zlib", "csv",
    "token", "locale.strxfrm", "platform", "distutils.version", "types.SimpleNamespace",
    "types.MappingProxyType",
    "types.MethodType", "types.GeneratorType", "types.NoneType", "types.new_class",
    "weakref.ref", "weakref.WeakKeyDictionary", "weakref.WeakValueDictionary",
    "weakref.WeakSet", "weakref.proxy", "ast.literal_eval", "ast.parse", "ast.walk",
    "ast.dump", "ast.unparse", "ast.NodeVisitor", "ast.NodeTransformer", "ast.iter_child_nodes",
    "ast.get_docstring", "codecs.encode", "codecs.decode", "codecs.lookup", "codecs.getencoder",
    "codecs.getdecoder", "codecs.BOM_UTF8", "io.StringIO", "io.BytesIO", "io.TextIOWrapper",
    "io.IOBase", "io.RawIOBase", "io.BufferedIOBase", "io.TextIOBase",
    "time.time", "time.monotonic", "time.perf_counter", "time.sleep", "time.strftime",
    "time.strptime", "time.gmtime", "time.localtime", "time.mktime", "time.struct_time",
    "time.time_ns", "time.monotonic_ns", "time.timezone", "time.altzone", "time.daylight",
    "os.sep", "os.linesep", "os.pathsep", "os.curdir", "os.pardir", "os.extsep", "os.altsep",
    "os.name", "os.fspath", "os.fsencode", "os.fsdecode", "os.PathLike", "os.devnull",
    *(f"{m}.{f}" for m in ("os.path", "posixpath", "ntpath") for f in (
        "join", "split", "splitext", "basename", "dirname", "normpath", "normcase", "commonpath",
        "commonprefix", "isabs", "splitdrive", "sep", "altsep", "extsep", "pardir", "curdir")),
    "pathlib.PurePath", "pathlib.PurePosixPath", "pathlib.PureWindowsPath",
    "sys.version", "sys.version_info", "sys.hexversion", "sys.platform", "sys.maxsize",
    "sys.maxunicode", "sys.byteorder", "sys.float_info", "sys.int_info", "sys.hash_info",
    "sys.implementation", "sys.getrecursionlimit", "sys.setrecursionlimit", "sys.getsizeof",
    "sys.getdefaultencoding", "sys.getfilesystemencoding", "sys.exc_info", "sys.exception",
    "sys.pypy_version_info", "sys.api_version", "sys.abiflags", "sys.getwindowsversion",
    "sys.builtin_module_names", "sys.stdlib_module_names", "sys.copyright",
    "sys.stdout", "sys.stderr", "sys.float_repr_style", "sys.intern",
    "importlib.metadata", "importlib.resources", "importlib.import_module",
    "sys.exit", "warnings.warn", "inspect.signature", "inspect.Signature", "inspect.Parameter",
    "inspect.isclass", "inspect.isfunction", "inspect.ismethod", "inspect.isroutine",
    "inspect.iscoroutinefunction", "inspect.isgeneratorfunction", "inspect.isabstract",
    "inspect.cleandoc", "inspect.getdoc", "inspect.getfullargspec", "inspect.getmro",
    "inspect.getattr_static", "inspect.unwrap", "inspect.ismodule", "inspect.isbuiltin",
    "inspect.isawaitable", "inspect.isdatadescriptor", "inspect.iscoroutine",
    "inspect.isgenerator", "inspect.isasyncgenfunction", "traceback.format_exc",
    "traceback.format_exception", "traceback.print_exc", "traceback.format_exception_only",
    "threading.Lock", "threading.RLock", "threading.local", "threading.Event",
    "threading.Condition", "threading.Semaphore", "threading.BoundedSemaphore",
    *(f"logging.{n}" for n in ("getLogger", "DEBUG", "INFO", "WARNING", "WARN", "ERROR",
                               "CRITICAL", "NOTSET", "Logger", "LoggerAdapter", "NullHandler",
                               "Handler", "Formatter", "LogRecord", "Filter", "getLevelName",
                               "debug", "info", "warning", "error", "exception", "critical",
                               "log")),
})
# What a fix has no business reading, even where the module's unchanged lines already do.
ALWAYS: dict[str, str] = {
    "os.environ": "the environment", "os.environb": "the environment",
    "os.getenv": "the environment", "os.putenv": "the environment",
    "os.unsetenv": "the environment", "posix.environ": "the environment",
    "os.path.expandvars": "the environment", "os.path.expanduser": "the environment",
    "pathlib.Path.home": "the environment", "os.getcwd": "the working directory",
    "os.getcwdb": "the working directory", "os.chdir": "the working directory",
    "pathlib.Path.cwd": "the working directory", "os.path.abspath": "the working directory",
    "os.getpid": "process state", "os.getppid": "the launch shape", "os.getpgrp": "process state",
    "os.getuid": "process state", "os.geteuid": "process state", "os.getlogin": "process state",
    "os.isatty": "output capture", "sys.argv": "the launch shape",
    "sys.orig_argv": "the launch shape", "sys.executable": "the launch shape",
    "sys.flags": "the launch shape", "sys.warnoptions": "the launch shape",
    "sys._xoptions": "the launch shape", "sys.path": "the import path",
    "sys.stdin": "process state",
    "sys.__stdout__": "output capture", "sys.__stderr__": "output capture", "__main__":
    "the launch shape", "sys": "interpreter state", "site": "the import path",
    "tempfile": "temp files", "subprocess": "an executor", "multiprocessing": "an executor",
    "concurrent": "an executor", "threading": "an executor", "_thread": "an executor",
    "asyncio.create_subprocess_exec": "an executor", "asyncio.create_subprocess_shell":
    "an executor", "os.system": "an executor", "os.popen": "an executor",
    "os.posix_spawn": "an executor", "os.posix_spawnp": "an executor", "pty": "an executor",
    "cProfile": "an executor", "profile": "an executor", "trace": "an executor",
    "timeit": "an executor", "sched": "an executor", "code": "an executor",
    "importlib": "a loader", "pkgutil": "a loader", "zipimport": "a loader", "runpy": "a loader",
    "imp": "a loader", "inspect": "frames and introspection", "traceback": "frames",
    "warnings": "the warnings machinery", "logging": "log capture", "faulthandler": "frames",
    "resource": "process state", "gc": "the object graph", "os.walk": "files",
}
ALWAYS.update({f"os.{n}": "an executor" for n in (
    "execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe", "spawnl",
    "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "fork")})
FILES = frozenset({"builtins.open", "io.open", "codecs.open", "os", "pathlib", "shutil", "glob",
                   "fileinput", "linecache", "mmap"})
# Attributes that say where a value comes from rather than what it is.
ORIGIN = {"__class__": "an argument's class", "__module__": "where a value was defined",
          "__qualname__": "where a value was defined", "__code__": "a callable's code",
          "co_filename": "a callable's file", "__traceback__": "frames",
          "__wrapped__": "a callable's origin", "isatty": "output capture",
          "findCaller": "frames", "hasHandlers": "log capture", "getEffectiveLevel": "log capture"}
# What a logger holds beyond what it is asked to log: how the run captures it.
LOG_STATE = frozenset({"handlers", "level", "getEffectiveLevel", "isEnabledFor", "hasHandlers",
                       "filters", "disabled", "propagate", "manager", "root", "parent",
                       "findCaller", "makeRecord", "lastResort"})
DOUBLES = frozenset({"assert_called", "assert_called_once", "assert_called_with",
                     "assert_called_once_with", "assert_any_call", "assert_has_calls",
                     "assert_not_called", "call_args", "call_args_list", "call_count",
                     "mock_calls", "method_calls", "return_value", "side_effect", "reset_mock",
                     "_mock_children", "_mock_name", "_spec_class", "called"})


class Allow:
    """Walks a file's added nodes for what the allow-list does not cover. `scan` is the
    capability scan of the file (`_ast._Scan`): its names, parents, added lines, packages."""

    def __init__(self, scan: object) -> None:
        self.s = scan
        tree: ast.Module = scan.tree  # type: ignore[attr-defined]
        self.module = _module_bindings(tree)
        self.used = self._used_on_unchanged_lines(tree)
        self.made = _made_by_calls(tree, scan.names)  # type: ignore[attr-defined]
        self.classes = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}

    def findings(self) -> Iterator[tuple[ast.AST, str]]:
        """(node, what it reaches and why that is not allowed), for every added node but those
        of annotations (types named for a checker, read by nothing at run time that matters)."""
        s = self.s
        skip = {id(x) for n in ast.walk(s.tree) for a in _annotations(n)  # type: ignore[attr-defined]
                for x in ast.walk(a)}
        for node in ast.walk(s.tree):  # type: ignore[attr-defined]
            if id(node) in skip or not s._in_added(node):  # type: ignore[attr-defined]
                continue
            found = self._check(node)
            if found:
                yield node, found

    def _check(self, node: ast.AST) -> str:
        s = self.s
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if node.attr in DOUBLES:
                return f".{node.attr} (a test double's API)"
            if node.attr in ORIGIN and not _on_self(node.value):
                return f".{node.attr} ({ORIGIN[node.attr]})"
        if isinstance(node, ast.Compare) and any(isinstance(o, ast.Is | ast.IsNot | ast.Eq | ast.NotEq)
                                                 for o in node.ops):
            for side in (node.left, *node.comparators):
                if _type_of_argument(side):
                    return "type(...) compared (an argument's exact type: test doubles)"
        if isinstance(node, ast.Call) and len(node.args) >= 2 and s.names.resolve(node.func) & {  # type: ignore[attr-defined]
                "builtins.getattr", "builtins.hasattr"}:
            name = s.names.fold(node.args[1])  # type: ignore[attr-defined]
            if name in DOUBLES:
                return f"{name!r} asked of a value (a test double's API)"
            if name in ORIGIN and not _on_self(node.args[0]):
                return f"{name!r} asked of a value ({ORIGIN[name]})"
        if isinstance(node, ast.Call) and s.names.resolve(node.func) & {  # type: ignore[attr-defined]
                "builtins.isinstance", "builtins.issubclass"} and len(node.args) == 2 and \
                not _is_self(node.args[0]) and self._own_class(node.args[1]) and \
                self._made_here(node, node.args[1], _on_self(node.args[0])):
            return "isinstance of the package's own class it also makes (a test double is not one)"
        if not isinstance(node, ast.Name | ast.Attribute) or not isinstance(node.ctx, ast.Load):
            return ""
        up = s.parent.get(id(node))  # type: ignore[attr-defined]
        if isinstance(up, ast.Attribute) and up.value is node:
            return ""  # the longest chain decides
        if isinstance(node, ast.Name) and self._local(node):
            return ""
        for dotted in sorted(self._dotted(node)):
            why = self.why(dotted)
            if why:
                return f"{dotted} ({why})"
        return ""

    def _dotted(self, node: ast.AST) -> set[str]:
        """What `node` names, read along its attribute chain from the name it starts at (not
        through a module reached as another's attribute: `pd.api.types` is pandas')."""
        base: ast.AST = node
        tail: list[str] = []
        while isinstance(base, ast.Attribute):
            tail.insert(0, base.attr)
            base = base.value
        if isinstance(base, ast.Name):
            out = {".".join([b, *tail]) for b in self.s.names.name(base.id)}  # type: ignore[attr-defined]
        else:
            out = set(self.s.names.resolve(node)) if not tail else set()  # type: ignore[attr-defined]
        if isinstance(base, ast.Name) and base.id in self.made:
            out |= {".".join([self.made[base.id], *tail])}
        if isinstance(base, ast.Call):
            for f in self.s.names.resolve(base.func):  # type: ignore[attr-defined]
                out.add(".".join([f + "()", *tail]))
            # `getattr(os, "env" + "iron")`, `importlib.import_module("os")`: what it names
            out |= {".".join([r, *tail]) for r in self.s.names.resolve(base)}  # type: ignore[attr-defined]
        return out

    def why(self, dotted: str) -> str:
        """Why a dotted name is not on the allow-list ("" where it is)."""
        root = dotted.split(".")[0]
        bare = dotted.replace("()", "")
        if root.startswith("__module__") or dotted.startswith(".") or root in self._own():
            return ""
        if root == "builtins":
            name = bare.split(".", 1)[1] if "." in bare else ""
            if name.split(".")[0] in PURE_BUILTINS or f"builtins.{name.split('.')[0]}" in self.used:
                return ""
            return "files" if name == "open" else "not a pure builtin"
        if root in self.module:
            return ""
        if root == "logging" and LOG_STATE & set(bare.split(".")[1:]):
            return "log capture"
        if _depth(bare, PURE) > _depth(bare, ALWAYS):
            return ""
        always = _lookup(bare, ALWAYS)
        if always:
            return always
        if bare in self.used or any(bare.startswith(u + ".") for u in self.used if "." in u):
            return ""
        if _lookup(bare, dict.fromkeys(FILES, "files")):
            return "files, where the module reads none"
        if root in _STDLIB:
            return "not on the allow-list"
        return "" if root in self.used_roots else "a library the module does not use"

    def _made_here(self, node: ast.AST, cls: ast.AST, held: bool = False) -> bool:
        """The function around `node` also makes an object of `cls`: it injects its own
        (`clock = clock or SystemClock()`) and asks whether what it was given is that. For
        what the object holds (`self.clock`, `held`), the class around it: the default is
        made in `__init__` and asked of in another method."""
        scope: type | tuple[type, ...] = ast.ClassDef if held else (ast.FunctionDef,
                                                                     ast.AsyncFunctionDef)
        up: ast.AST | None = self.s.parent.get(id(node))  # type: ignore[attr-defined]
        while up is not None and not isinstance(up, scope):
            up = self.s.parent.get(id(up))  # type: ignore[attr-defined]
        if up is None:
            return False
        names = {ast.dump(c) for c in (cls.elts if isinstance(cls, ast.Tuple) else [cls])}
        return any(isinstance(n, ast.Call) and ast.dump(n.func) in names for n in ast.walk(up))

    def _own(self) -> set[str]:
        return set(self.s.own) - _STDLIB  # type: ignore[attr-defined]

    def _own_class(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Tuple):
            return any(self._own_class(e) for e in node.elts)
        if isinstance(node, ast.Name) and node.id in self.classes:
            return True
        for d in self.s.names.resolve(node):  # type: ignore[attr-defined]
            root = d.split(".")[0]
            if (d.startswith(".") or root in self._own()) and d.rsplit(".", 1)[-1][:1].isupper():
                return True
        return False

    def _local(self, node: ast.Name) -> bool:
        """Bound in an enclosing function (an argument, a local) or at the file's top level by
        anything but an import."""
        up = self.s.parent.get(id(node))  # type: ignore[attr-defined]
        while up is not None:
            if isinstance(up, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and \
                    node.id in _function_locals(up):
                return True
            if isinstance(up, ast.comprehension | ast.ListComp | ast.SetComp | ast.DictComp
                          | ast.GeneratorExp) and node.id in _comp_targets(up):
                return True
            up = self.s.parent.get(id(up))  # type: ignore[attr-defined]
        return node.id in self.module

    def _used_on_unchanged_lines(self, tree: ast.Module) -> set[str]:
        s = self.s
        used: set[str] = set()
        roots: set[str] = set()
        for node in ast.walk(tree):
            if s.added is None:  # type: ignore[attr-defined]
                break  # a new file: nothing was there before it
            if s._in_added(node):  # type: ignore[attr-defined]
                continue
            if isinstance(node, ast.Name | ast.Attribute):
                used |= s.names.resolve(node)  # type: ignore[attr-defined]
            if isinstance(node, ast.Import | ast.ImportFrom):
                roots |= {(a.name if isinstance(node, ast.Import) else node.module or "")
                          .split(".")[0] for a in node.names}
        self.used_roots = roots
        return used


_STDLIB = frozenset(__import__("sys").stdlib_module_names) | {"__main__"}


def _depth(dotted: str, table: frozenset[str] | dict[str, str]) -> int:
    """How many parts of `dotted` the longest name of `table` it starts with has (0: none)."""
    parts = dotted.split(".")
    return next((i for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in table), 0)


def _lookup(dotted: str, table: dict[str, str]) -> str:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        hit = table.get(".".join(parts[:i]))
        if hit:
            return hit
    return ""


def _annotations(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.arg | ast.AnnAssign):
        return [node.annotation] if node.annotation is not None else []
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.returns] if node.returns is not None else []
    return []


def _is_self(node: ast.AST) -> bool:
    """`self`, `cls` or `type(self)`: the object itself (`__eq__` asks what it is compared with
    as `isinstance(other, type(self))`, and `isinstance(self, Own)` is the object's own class)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" \
            and node.args:
        node = node.args[0]
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _on_self(node: ast.AST) -> bool:
    """`self`, `cls` or their attributes: the object's own class, not an argument's."""
    while isinstance(node, ast.Attribute | ast.Call):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id == "type" and node.args):
                return False
            node = node.args[0]
        else:
            node = node.value
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _type_of_argument(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "type" and len(node.args) == 1 and not _on_self(node.args[0])


def _module_bindings(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for st in tree.body:
        for node in ast.walk(st):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and \
                    node is not st:
                break
    return out


def _function_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = fn.args
    out = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x}
    if isinstance(fn, ast.Lambda):
        return out
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            out.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and \
                node is not fn:
            out.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.alias) and node.asname is None:
            out.add(node.name.split(".")[0])
        elif isinstance(node, ast.alias):
            out.add(str(node.asname))
        elif isinstance(node, ast.Global | ast.Nonlocal):
            out.update(node.names)
    return out


def _comp_targets(node: ast.AST) -> set[str]:
    gens = getattr(node, "generators", [node])
    return {n.id for g in gens for n in ast.walk(g.target) if isinstance(n, ast.Name)}


def _made_by_calls(tree: ast.Module, names: object) -> dict[str, str]:
    """Top-level names bound to what a call of a resolved name returns (`log =
    logging.getLogger(__name__)`): their attributes are that call's result's."""
    out: dict[str, str] = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
            made = names.resolve(st.value.func)  # type: ignore[attr-defined]
            for t in st.targets:
                if isinstance(t, ast.Name) and len(made) == 1:
                    out[t.id] = next(iter(made)) + "()"
    return out
