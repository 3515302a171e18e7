"""What names in a Python file stand for, by meaning rather than spelling.

`Names` reads every binding of the file (imports with `as`, `from x import y as z`, assignments,
tuple unpacking, loop targets over literal tuples, walrus, parameter defaults) and resolves an
expression to the dotted names it may denote: `o._exit` where `import os as o`,
`getattr(sys, "mod" + "ules")`, `importlib.import_module("sys").modules`,
`__import__("builtins").exec`, `vars(sys)["modules"]`, `globals()["sys"]`, `os.sys.modules`
(a module reached as another module's attribute), `print.__self__` (the builtins module). A name
bound in more than one way resolves to each; a builtin resolves to `builtins.<name>` unless the
file binds that name to something else. Strings fold when the file spells them from constants
(`+`, `%`, f-strings, `join`, slices, case methods, `chr`, rot13 and base64 of constants).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable

from evaluator.policy._fold import fold

_BUILTINS = frozenset(dir(builtins))
# Modules whose own attribute of that name on any resolved module is the module itself
# (`os.sys`, `inspect.sys`, `logging.traceback`...).
MODULE_ATTRS = frozenset({"sys", "builtins", "importlib", "ctypes", "marshal", "gc", "inspect",
                          "atexit", "signal", "traceback", "_pytest", "pytest", "os", "types",
                          "threading", "weakref", "pickle", "runpy", "zipimport", "posix"})
NAMESPACE = "__dict__"  # suffix of a resolved namespace: `sys.__dict__`, `vars(sys)`
OWN_MODULE = "__module__"  # the file's own module: `globals()`, `__loader__`, `__spec__`
_MAX_LEN = 4096


class Names:
    def __init__(self, tree: ast.AST) -> None:
        self.bindings: dict[str, set[str]] = {}
        self.opaque: set[str] = set()  # names also bound to something that does not resolve
        self.star: list[str] = []  # modules star-imported
        self.consts: dict[str, set[str]] = {}  # names bound to strings the file spells
        nodes = list(ast.walk(tree))
        self.functions = {n.name: n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        for _ in range(4):  # bindings that name other bindings settle in a few rounds
            before = {k: set(v) for k, v in self.bindings.items()}
            for node in nodes:
                self._bind(node)
            if before == self.bindings:
                break

    # -- bindings ------------------------------------------------------------------------
    def _add(self, name: str, values: Iterable[str]) -> None:
        values = set(values)
        if values:
            self.bindings.setdefault(name, set()).update(values)
        else:
            self.opaque.add(name)

    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self._add(a.asname, [a.name])
                else:
                    top = a.name.split(".")[0]
                    self._add(top, [top])
        elif isinstance(node, ast.ImportFrom):
            mod = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name == "*":
                    self.star.append(mod)
                else:
                    self._add(a.asname or a.name, [f"{mod}.{a.name}" if mod else a.name])
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                self._assign(t, node.value)
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            self._assign(node.target, node.value)
        elif isinstance(node, ast.For | ast.comprehension):
            items = node.iter.elts if isinstance(node.iter, ast.Tuple | ast.List | ast.Set) else None
            if isinstance(node.target, ast.Name):
                self._add(node.target.id, [v for e in items for v in self.resolve(e)] if items else [])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults,
                             strict=True))
            pairs += [(k, d) for k, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                      if d is not None]
            defaulted = {param.arg for param, _ in pairs}
            for param, default in pairs:
                self._add(param.arg, self.resolve(default))
            for maybe in [*positional, *args.kwonlyargs, args.vararg, args.kwarg]:
                if maybe is not None and maybe.arg not in defaulted:
                    self.opaque.add(maybe.arg)
            if not isinstance(node, ast.Lambda):
                self.opaque.add(node.name)
        elif isinstance(node, ast.ClassDef):
            self.opaque.add(node.name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in self.functions:
            self._pass(self.functions[node.func.id], node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.opaque.add(str(node.name))
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
            self.opaque.add(node.optional_vars.id)

    def _pass(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call) -> None:
        """A call of a function of this file binds its parameters to what it is given."""
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        for name, arg in [*zip(params, call.args, strict=False),
                          *((k.arg, k.value) for k in call.keywords if k.arg)]:
            if not isinstance(arg, ast.Starred) and (values := self.resolve(arg)):
                self.bindings.setdefault(name, set()).update(values)

    def _assign(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            text = self.fold(value)
            resolved = self.resolve(value)
            if text is not None:
                self.consts.setdefault(target.id, set()).add(text)
            if resolved or text is None:
                self._add(target.id, resolved)
        elif isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) else None
            for i, t in enumerate(target.elts):
                if values is not None and i < len(values) and not isinstance(t, ast.Starred):
                    self._assign(t, values[i])
                elif isinstance(t, ast.Name):
                    self.opaque.add(t.id)

    # -- resolution ----------------------------------------------------------------------
    def resolve(self, node: ast.AST) -> set[str]:
        """Every dotted name `node` may denote (empty when nothing is known)."""
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Subscript):
            key = self.fold(node.slice)
            if key is None:  # an item of argv is argv's data
                return self.resolve(node.value) & {"sys.argv", "sys.orig_argv"}
            out = set()
            for base in self.resolve(node.value):
                if base == f"{OWN_MODULE}.{NAMESPACE}":
                    out |= self.name(key)
                elif base.endswith("." + NAMESPACE):
                    out |= _dotted(base[: -len(NAMESPACE) - 1], key)
                elif base == "sys.modules":
                    out.add(key)
            return out
        if isinstance(node, ast.NamedExpr):
            return self.resolve(node.value)
        if isinstance(node, ast.BoolOp | ast.IfExp):
            parts = node.values if isinstance(node, ast.BoolOp) else [node.body, node.orelse]
            return {v for p in parts for v in self.resolve(p)}
        return set()

    def name(self, ident: str) -> set[str]:
        out = set(self.bindings.get(ident, ()))
        if ident == "__builtins__":
            out.add("builtins")
        elif ident in ("__loader__", "__spec__", "__file__", "__name__", "__package__"):
            out.add(f"{OWN_MODULE}.{ident}")
        elif ident in _BUILTINS and ident not in self.opaque and not out:
            out.add(f"builtins.{ident}")
        elif ident in MODULE_ATTRS and ident not in self.opaque and not out:
            out.add(ident)  # bound where this text does not show (an import above the hunk)
        return out

    def _attribute(self, node: ast.Attribute) -> set[str]:
        bases = self.resolve(node.value)
        out: set[str] = set()
        for base in bases:
            if node.attr == NAMESPACE:
                out.add(f"{base}.{NAMESPACE}")
            elif node.attr == "__self__" and "." in base:
                out.add(base.rsplit(".", 1)[0])  # print.__self__ is builtins
            else:
                out |= _dotted(base, node.attr)
        if bases and node.attr in MODULE_ATTRS:
            out.add(node.attr)
        return out

    def _call(self, node: ast.Call) -> set[str]:
        fn = self.resolve(node.func)
        args = node.args
        out: set[str] = set()
        if fn & {"builtins.getattr"} and len(args) >= 2:
            attr = self.fold(args[1])
            if attr is not None:
                for base in self.resolve(args[0]):
                    out |= _dotted(base, attr)
        if fn & {"builtins.__import__", "importlib.__import__"} and args:
            name = self.fold(args[0])
            fromlist = args[3] if len(args) > 3 else next(
                (k.value for k in node.keywords if k.arg == "fromlist"), None)
            if name:
                out.add(name if fromlist is not None and _truthy(fromlist) else name.split(".")[0])
        if fn & {"importlib.import_module"} and args:
            name = self.fold(args[0])
            if name and not name.startswith("."):
                out.add(name)
        if fn & {"builtins.vars"}:
            out |= {f"{b}.{NAMESPACE}" for b in self.resolve(args[0])} if args else {
                f"{OWN_MODULE}.{NAMESPACE}"}
        if fn & {"builtins.globals", "builtins.locals"}:
            out.add(f"{OWN_MODULE}.{NAMESPACE}")
        for f in fn:  # `vars(sys).get("modules")`, `sys.modules.get("x")`
            if f.endswith(f".{NAMESPACE}.get") and args and (key := self.fold(args[0])):
                base = f[: -len(NAMESPACE) - 5]
                out |= self.name(key) if base == OWN_MODULE else _dotted(base, key)
            if f == "sys.modules.get" and args and (key := self.fold(args[0])):
                out.add(key)
        return out

    # -- strings ---------------------------------------------------------------------------
    def fold(self, node: ast.AST | None) -> str | None:
        """The string `node` always evaluates to, when the file spells it from constants."""
        text = fold(node, self)
        return text if text is None or len(text) <= _MAX_LEN else None


def _dotted(base: str, attr: str) -> set[str]:
    return {f"{base}.{attr}"}


def _truthy(node: ast.AST) -> bool:
    return not (isinstance(node, ast.Constant) and not node.value) and not (
        isinstance(node, ast.List | ast.Tuple) and not node.elts)
