"""An agent's own code: every module its entry point imports, found by reading it, never running it.

Imports are followed transitively through the source (`import x`, `from x import y`, relative
imports, imports inside functions too). A module that lives in the standard library or in an
installed distribution ends the walk there: the interpreter is covered by its version, and the
installed modules reached are where `_distributions` starts the agent's distribution closure.
Imports made at run time from strings (`importlib.import_module(name)`) cannot be seen; list such
modules in `extra_modules`. A module of the harness itself (the reference agent, `AgentContext`)
is held by the version of the behaviour contract that speaks for it, not by its source
(`evaluator.version.stand_in`); the walk goes on through it, to the distributions it imports.
"""

from __future__ import annotations

import ast
import functools
import os
import site
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

from evaluator.agents._distributions import owners
from evaluator.errors import BadInputError
from evaluator.hashing import hash_bytes, hash_file
from evaluator.pysource import parse
from evaluator.version import stand_in


@dataclass(frozen=True)
class Closure:
    """Own modules by name -> blake3 of their file; `external` the installed (not standard
    library) modules they import, where the walk stopped, for `_distributions`."""

    modules: dict[str, str]
    files: dict[str, Path]  # module name -> file, for provenance
    external: dict[str, Path] = field(default_factory=dict)

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
    return real.startswith(roots) or _installed_part(real)


def _installed_part(real: str) -> bool:
    parts = Path(real).parts
    return "site-packages" in parts or "dist-packages" in parts


@functools.cache
def _stdlib_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[k]) + os.sep for k in ("stdlib", "platstdlib") if k in paths)


def _is_stdlib(origin: str) -> bool:
    """The interpreter's own library (its version covers it), not a site-packages inside it."""
    real = os.path.realpath(origin)
    return real.startswith(_stdlib_roots()) and not _installed_part(real)


def _find_spec(name: str, where: Sequence[str]) -> ModuleSpec | None:
    """`PathFinder.find_spec(name, where)`, but a namespace package's locations are a plain list:
    the import system's own recomputes itself from the parent package in `sys.modules`, and
    fails (KeyError) for a nested namespace package when nothing was imported."""
    portions: list[str] = []
    for entry in where:
        finder = _entry_finder(entry)
        spec = finder.find_spec(name) if finder is not None else None
        if spec is None:
            continue
        if spec.loader is not None:
            return spec
        portions.extend(spec.submodule_search_locations or ())
    if not portions:
        return None
    spec = ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = portions
    return spec


@functools.cache
def _entry_finder(entry: str) -> Any:
    for hook in sys.path_hooks:
        try:
            return hook(entry)
        except ImportError:
            continue
    return None


class _Finder:
    """Finds module specs along `search_path` without importing anything."""

    def __init__(self, search_path: Sequence[str]) -> None:
        self._path = [os.path.abspath(p or os.curdir) for p in search_path]
        self._specs: dict[str, ModuleSpec | None] = {}

    def find(self, name: str) -> ModuleSpec | None:
        if name not in self._specs:
            parent, _, _ = name.rpartition(".")
            pspec = self.find(parent) if parent else None
            where = (pspec.submodule_search_locations if pspec else None) if parent else self._path
            self._specs[name] = _find_spec(name, list(where)) if where else None
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
    finder, outside = _Finder(search_path), _external_roots()
    owned = owners(search_path)
    modules: dict[str, str] = {}
    files: dict[str, Path] = {}
    external: dict[str, Path] = {}
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
        if _is_external(spec.origin, outside) or os.path.realpath(spec.origin) in owned:
            if not _is_stdlib(spec.origin):
                external[name] = Path(spec.origin)
            continue
        path = Path(spec.origin)
        if path.suffix != ".py":
            # An extension module: its bytes are hashed, its imports cannot be read.
            modules[name], files[name] = stand_in(path) or hash_file(path), path
            continue
        data = path.read_bytes()
        digest = hash_bytes(data)
        # A module of the harness stands in by the version of the contract that speaks for it:
        # a comment or a refactor there is no new agent (docs/contracts.md).
        modules[name], files[name] = stand_in(path) or digest, path
        is_package = spec.submodule_search_locations is not None
        for imported in _imports_of(digest, data, str(path), name, is_package):
            todo.extend(n for n in _with_parents(imported) if n not in seen)
    return Closure(modules, files, external)


# Keyed by the bytes' hash, never by a path or mtime: the same source always names the same
# imports, so a long-running server plans in milliseconds and cannot see a stale walk.
_IMPORTS: dict[tuple[str, str, bool], tuple[str, ...]] = {}


def _imports_of(digest: str, data: bytes, filename: str, module: str,
                is_package: bool) -> tuple[str, ...]:
    key = (digest, module, is_package)
    if key not in _IMPORTS:
        try:
            tree = parse(data, filename=filename)
        except (SyntaxError, ValueError) as exc:
            raise BadInputError(f"{filename}: agent code does not parse: {exc}") from None
        if len(_IMPORTS) > 8192:
            _IMPORTS.clear()
        _IMPORTS[key] = tuple(_imports(tree, module, is_package))
    return _IMPORTS[key]


def missing(module: str, search_path: Sequence[str]) -> str | None:
    """Why `module` names no module along `search_path`, or None when it does."""
    if not module or not all(part.isidentifier() for part in module.split(".")):
        return f"{module!r} is not a module name (dotted identifiers, e.g. mypkg.tools)"
    spec = _Finder(search_path).find(module)
    if spec is None:
        return f"no module {module!r} on the Python path"
    return None


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
