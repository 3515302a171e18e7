"""The one change that makes a twin fail wherever its source passes: another value for one
side of an equality the test always asserts (`assert f(2) == 5`, `self.assertEqual(x, 5)`, or a
parametrized case's expected value), of the same type and written the same way (quotes,
sign), drawn from the file's own values of that type or a neighbour of the old one. Only
assertions that run whenever the test passes qualify: top-level statements of a test without
`return` or `yield`, so a skipped branch cannot let both pass.
"""

from __future__ import annotations

import ast
import random
import re
from typing import Any, Protocol

from evaluator.grading._params import case_ids, parametrize_of


class TestFile(Protocol):
    text: bytes
    tree: ast.Module

    def offset(self, line: int, col: int = 0) -> int: ...

_EQUAL_CALLS = {"assertEqual", "assertEquals", "assert_equal", "assertListEqual",
                "assertTupleEqual", "assertMultiLineEqual"}
_SCALARS = (bool, int, float, str, bytes)


def _always_runs(fn: ast.FunctionDef) -> list[ast.stmt]:
    """Statements of the body that run whenever the test passes (no early return, no yield)."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom):
            return []
        if not isinstance(node, nested):
            stack.extend(ast.iter_child_nodes(node))
    return list(fn.body)


def _compared(stmt: ast.stmt) -> tuple[ast.expr, ast.expr] | None:
    """The two sides of an equality the statement asserts, if it asserts one."""
    if isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare):
        t = stmt.test
        if len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq):
            return t.left, t.comparators[0]
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        fname = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(
            call.func, "id", "")
        if fname in _EQUAL_CALLS and len(call.args) >= 2 and not any(
                isinstance(a, ast.Starred) for a in call.args):
            return call.args[0], call.args[1]
    return None


def _literal(node: ast.expr) -> object:
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, tuple | list) and value and all(isinstance(v, _SCALARS) for v in value):
        return value
    return None


def perturb(rng: random.Random, tf: TestFile, fn: ast.FunctionDef, suffixes: list[str]
             ) -> tuple[tuple[int, int, bytes], set[str], int | None] | None:
    """One edit that makes the twin fail wherever its source passes: (the edit, the suffixes
    of the cases it changes, the index of the parametrized case it changes or None)."""
    sites: list[tuple[ast.expr, set[str], int | None]] = []
    params = parametrize_of(fn)
    ids = case_ids(params) if params else None
    for stmt in _always_runs(fn):
        sides = _compared(stmt)
        if sides is None:
            continue
        for side, other in (sides, sides[::-1]):
            if _literal(other) is not None:
                continue
            if _literal(side) is not None:
                sites.append((side, set(suffixes), None))
            elif (params and ids and isinstance(side, ast.Name) and side.id in params.argnames
                  and not _assigned(fn, side.id)):
                for s in suffixes:
                    node = params.value_node(ids.index(s[1:-1]), side.id) if (
                        s[1:-1] in ids) else None
                    if node is not None and _literal(node) is not None:
                        sites.append((node, {s}, ids.index(s[1:-1])))
    rng.shuffle(sites)
    for node, changed, index in sites:
        edit = _changed(rng, tf, node)
        if edit is not None:
            return edit, changed, index
    return None


def _assigned(fn: ast.FunctionDef, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(fn))


def _changed(rng: random.Random, tf: TestFile, node: ast.expr) -> tuple[int, int, bytes] | None:
    """(start, end, text) replacing one scalar of a literal by another value of its type."""
    value = _literal(node)
    if isinstance(value, tuple | list):
        elts = [e for e in getattr(node, "elts", []) if _literal(e) is not None]
        return _changed(rng, tf, rng.choice(elts)) if elts else None
    start = tf.offset(node.lineno, node.col_offset)
    end = tf.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
    text = tf.text[start:end]
    new = _other_value(rng, tf, value)
    if new is None:
        return None
    if isinstance(value, str | bytes):
        rendered = _same_quotes(text, value, new)
        if rendered is None:
            return None
    else:
        rendered = repr(new).encode()
    try:
        if ast.literal_eval(rendered.decode()) == value:
            return None
    except (ValueError, SyntaxError, UnicodeDecodeError):
        return None
    return start, end, rendered


def _other_value(rng: random.Random, tf: TestFile, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    pool: list[Any] = sorted({c.value for c in ast.walk(tf.tree) if isinstance(c, ast.Constant)
                   and type(c.value) is type(value) and c.value != value}, key=repr)
    if isinstance(value, int):
        near = [value + d for d in (-2, -1, 1, 2) if (value + d < 0) == (value < 0)]
        pool = [p for p in pool if (p < 0) == (value < 0)] + near
    elif isinstance(value, float):
        pool += [value + 1.0, value * 2 if value else 1.5]
    elif isinstance(value, str | bytes):
        pool = [p for p in pool if p and "\n" not in str(p)] + [_one_letter(rng, value)]
    candidates = [p for p in pool if p is not None and p != value]
    return rng.choice(candidates) if candidates else None


def _one_letter(rng: random.Random, value: str | bytes) -> str | bytes | None:
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    spots = [i for i, ch in enumerate(text) if ch.isalnum() and ch.isascii()]
    if not spots:
        return None
    i = rng.choice(spots)
    pool = ("0123456789" if text[i].isdigit() else
            "abcdefghijklmnopqrstuvwxyz" if text[i].islower() else "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    out = text[:i] + rng.choice([c for c in pool if c != text[i]]) + text[i + 1:]
    return out.encode("latin-1") if isinstance(value, bytes) else out


def _same_quotes(text: bytes, old: str | bytes, new: str | bytes) -> bytes | None:
    """The new string written as the old one was (prefix and quotes), or None if that is not
    a plain one-piece literal."""
    m = re.fullmatch(rb"([bBuU]?)('|\")(.*)\2", text, re.S)
    body = new.encode() if isinstance(new, str) else new
    if m is None or b"\\" in text or m.group(3) != (old.encode() if isinstance(old, str) else old):
        return None
    if m.group(2) in body or b"\\" in body or b"\n" in body:
        return None
    return m.group(1) + m.group(2) + body + m.group(2)
