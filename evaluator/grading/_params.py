"""A test's `@pytest.mark.parametrize(...)` read from its source, and the ids pytest gives its
cases, where they can be known without running anything (literal values, explicit `ids=`).

pytest makes an id from each value (`str` of numbers, booleans and None; printable ASCII
strings up to 100 characters as they are; `argname` + index for anything else) joined by `-`,
and numbers duplicates; a hook or an `ids=` callable can change it. Where any of that could
apply, the ids are unknown (None) and nothing is derived from them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Params:
    argnames: tuple[str, ...]
    cases: tuple[ast.expr, ...]
    ids: tuple[str | None, ...] | None  # explicit ids, one per case (None entries: derived)

    def value_node(self, index: int, argname: str) -> ast.expr | None:
        case = self.cases[index]
        if len(self.argnames) == 1:
            return case
        if isinstance(case, ast.Tuple | ast.List) and len(case.elts) == len(self.argnames):
            return case.elts[self.argnames.index(argname)]
        return None


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return node.id if isinstance(node, ast.Name) else ""


def parametrize_of(fn: ast.FunctionDef) -> Params | None:
    """The one `parametrize` of a test, when it is written out in its decorator."""
    calls = [d for d in fn.decorator_list
             if isinstance(d, ast.Call) and _dotted(d.func).split(".")[-1] == "parametrize"]
    if len(calls) != 1:
        return None
    call = calls[0]
    kw = {k.arg: k.value for k in call.keywords if k.arg}
    if len(call.keywords) != len(kw) or set(kw) - {"ids", "argnames", "argvalues"}:
        return None  # indirect=, scope= or **kwargs: not a plain parametrization
    names = call.args[0] if call.args else kw.get("argnames")
    values = call.args[1] if len(call.args) > 1 else kw.get("argvalues")
    if len(call.args) > 2 or names is None or not isinstance(values, ast.List | ast.Tuple):
        return None
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        argnames = tuple(n.strip() for n in names.value.split(",") if n.strip())
    elif isinstance(names, ast.List | ast.Tuple) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names.elts):
        argnames = tuple(e.value for e in names.elts)  # type: ignore[attr-defined]
    else:
        return None
    ids: tuple[str | None, ...] | None = None
    if "ids" in kw:
        node = kw["ids"]
        if not isinstance(node, ast.List | ast.Tuple) or len(node.elts) != len(values.elts) or not all(
                isinstance(e, ast.Constant) and (e.value is None or isinstance(e.value, str))
                for e in node.elts):
            return None
        ids = tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
    return Params(argnames, tuple(values.elts), ids) if argnames else None


def _value_id(node: ast.expr | None, argname: str, index: int) -> str | None:
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # a name or a call: its id depends on what it is at run time
    if isinstance(value, str):
        ok = 0 < len(value) <= 100 and value.isascii() and value.isprintable()
        return value if ok else None
    if value is None or isinstance(value, bool | int | float | complex):
        return str(value)
    if isinstance(value, bytes):
        return None
    return f"{argname}{index}"


def case_ids(params: Params) -> list[str] | None:
    """Every case's id (without brackets), or None where one of them cannot be known."""
    out = []
    for i in range(len(params.cases)):
        explicit = params.ids[i] if params.ids is not None else None
        if explicit is not None:
            out.append(explicit)
            continue
        if isinstance(params.cases[i], ast.Call):
            return None  # pytest.param(...): its own id and marks
        parts = [_value_id(params.value_node(i, a), a, i) for a in params.argnames]
        if any(p is None for p in parts):
            return None
        out.append("-".join(p for p in parts if p is not None))
    return out if len(set(out)) == len(out) else None
