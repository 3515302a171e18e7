"""An agent's own code: every module its entry point imports, found by reading it, never running it.

Imports are followed transitively through the source (`import x`, `from x import y`, relative
imports, imports inside functions too). A module that lives in the standard library or in an
installed distribution ends the walk there: distributions are covered by their name and version
(see `_environment`), the interpreter by its version. Imports made at run time from strings
(`importlib.import_module(name)`) cannot be seen; list such modules in `extra_modules`.
"""

from __future__ import annotations

import ast
import os
import site
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.machinery import ModuleSpec, PathFinder
from pathlib import Path

from evaluator.errors import BadInputError
from evaluator.hashing import hash_file
from evaluator.pysource import parse


@dataclass(frozen=True)
class Closure:
    """Own modules by name -> blake3 of their file."""

    modules: dict[str, str]
    files: dict[str, Path]  # module name -> file, for provenance

    @property
    def paths(self) -> list[Path]:
        return sorted(self.files.values())


def _external_roots() -> tuple[str, ...]:
    """Folders whose modules are not the agent's own: the stdlib and every site-packages."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.update(site.getsitepackages())
    roots.add(site.getusersitepackages())
    return tuple(sorted(os.path.realpath(r) + os.sep for r in roots))


def _is_external(origin: str, roots: tuple[str, ...]) -> bool:
    real = os.path.realpath(origin)
    parts = Path(real).parts
    return real.startswith(roots) or "site-packages" in parts or "dist-packages" in parts


class _Finder:
    """Finds module specs along `search_path` without importing anything."""

    def __init__(self, search_path: Sequence[str]) -> None:
        self._path = [os.path.abspath(p or os.curdir) for p in search_path]
        self._specs: dict[str, ModuleSpec | None] = {}

    def find(self, name: str) -> ModuleSpec | None:
        if name not in self._specs:
            parent, _, _ = name.rpartition(".")
            if parent:
                pspec = self.find(parent)
                where = pspec.submodule_search_locations if pspec else None
                self._specs[name] = PathFinder.find_spec(name, list(where)) if where else None
            else:
                self._specs[name] = PathFinder.find_spec(name, self._path)
        return self._specs[name]


def _imports(tree: ast.AST, module: str, is_package: bool) -> list[str]:
    """Every module name `tree` may import, including `pkg.name` for `from pkg import name`."""
    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - node.level + 1] if node.level > 1 else base
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            if prefix:
                names.append(prefix)
            names.extend(f"{prefix}.{a.name}" if prefix else a.name for a in node.names
                         if a.name != "*")
    return names


def _with_parents(name: str) -> list[str]:
    """Importing `a.b.c` runs `a` and `a.b` first."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def code_closure(roots: Sequence[str], search_path: Sequence[str]) -> Closure:
    """The own modules reachable from the modules named in `roots` along `search_path`."""
    finder, external = _Finder(search_path), _external_roots()
    modules: dict[str, str] = {}
    files: dict[str, Path] = {}
    todo = [n for root in roots for n in _with_parents(root)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        spec = finder.find(name)
        if spec is None or not spec.origin or not os.path.isfile(spec.origin):
            continue  # builtin, frozen, namespace package, or a name that is not a module
        if _is_external(spec.origin, external):
            continue
        path = Path(spec.origin)
        modules[name], files[name] = hash_file(path), path
        if path.suffix != ".py":
            continue  # an extension module: its bytes are hashed, its imports cannot be read
        try:
            tree = parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError) as exc:
            raise BadInputError(f"{path}: agent code does not parse: {exc}") from None
        is_package = spec.submodule_search_locations is not None
        for imported in _imports(tree, name, is_package):
            todo.extend(n for n in _with_parents(imported) if n not in seen)
    return Closure(modules, files)


def defines(module: str, attr: str, search_path: Sequence[str]) -> str | None:
    """Why `module:attr` is not a loadable name, or None when the module defines or imports it."""
    spec = _Finder(search_path).find(module)
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        return f"no module {module!r} on the Python path"
    if not spec.origin.endswith(".py"):
        return None
    tree = parse(Path(spec.origin).read_bytes(), filename=spec.origin)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = [(a.asname or a.name).split(".")[0] for a in node.names]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = [t.id for t in targets if isinstance(t, ast.Name)]
        else:
            continue
        if attr in bound:
            return None
    return f"module {module!r} ({spec.origin}) defines no {attr!r}"
