"""Strings a file spells from constants, folded to their value: `"mod" + "ules"`, `"%s" % x`,
f-strings of constants, `join`, slices, case methods, `chr`, rot13, base64 and hex of constants.

A name folds when the file binds it to one constant string and to nothing else (`Names`
records both); `chr`, `str` and the codecs fold only where the name resolves to them.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
from typing import Protocol


class Bindings(Protocol):
    """What folding asks of a file's names (`evaluator.policy._names.Names`)."""

    consts: dict[str, set[str]]
    opaque: set[str]

    def resolve(self, node: ast.AST) -> set[str]: ...


def fold(node: ast.AST | None, names: Bindings) -> str | None:  # noqa: C901 - one table of cases
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return node.value
        if isinstance(node.value, bytes):
            return node.value.decode("latin-1")
        return None
    if isinstance(node, ast.Name):
        values = names.consts.get(node.id, set())
        return next(iter(values)) if len(values) == 1 and node.id not in names.opaque else None
    if isinstance(node, ast.BinOp):
        left = fold(node.left, names)
        if isinstance(node.op, ast.Add):
            right = fold(node.right, names)
            return left + right if left is not None and right is not None else None
        if isinstance(node.op, ast.Mod) and left is not None:
            parts = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            folded = [fold(p, names) for p in parts]
            if None not in folded:
                try:
                    return left % tuple(folded)
                except (TypeError, ValueError):
                    return None
        if isinstance(node.op, ast.Mult) and left is not None and isinstance(node.right, ast.Constant) \
                and isinstance(node.right.value, int) and 0 <= node.right.value <= 64:
            return left * node.right.value
        return None
    if isinstance(node, ast.JoinedStr):
        pieces: list[str] = []
        for v in node.values:
            piece = fold(v.value if isinstance(v, ast.FormattedValue) else v, names)
            if piece is None:
                return None
            pieces.append(piece)
        return "".join(pieces)
    if isinstance(node, ast.Subscript):
        text = fold(node.value, names)
        if text is None:
            return None
        try:
            index = _literal_slice(node.slice)
            return text[index] if index is not None else None
        except (IndexError, TypeError, ValueError):
            return None
    if isinstance(node, ast.Call):
        return _fold_call(node, names)
    return None


def _literal_slice(node: ast.AST) -> slice | int | None:
    def num(n: ast.AST | None) -> int | None:
        if n is None:
            return None
        v = ast.literal_eval(n)
        if not isinstance(v, int):
            raise ValueError
        return v

    if isinstance(node, ast.Slice):
        return slice(num(node.lower), num(node.upper), num(node.step))
    return num(node)


_CASE = {"upper", "lower", "strip", "lstrip", "rstrip", "title", "casefold", "swapcase",
         "capitalize", "replace", "format", "removeprefix", "removesuffix", "decode", "encode"}


def _fold_call(node: ast.Call, names: Bindings) -> str | None:
    fn = node.func
    args = [fold(a, names) for a in node.args]
    if isinstance(fn, ast.Attribute):
        if fn.attr == "join":
            sep = fold(fn.value, names)
            seq = node.args[0] if node.args else None
            if sep is not None and isinstance(seq, ast.List | ast.Tuple):
                items = [fold(e, names) for e in seq.elts]
                return sep.join(i for i in items if i is not None) if None not in items else None
            return None
        base = fold(fn.value, names) if fn.attr in _CASE else None
        if base is not None:
            if None in args:
                return None
            if fn.attr in ("decode", "encode"):
                return base
            try:
                return str(getattr(base, fn.attr)(*args))
            except (TypeError, ValueError, IndexError, KeyError):
                return None
    resolved = names.resolve(fn)
    if resolved & {"builtins.chr"} and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, int) and 0 <= node.args[0].value < 0x110000:
        return chr(node.args[0].value)
    if resolved & {"builtins.str"} and len(args) == 1:
        return args[0]
    if resolved & {"codecs.decode", "codecs.encode"} and args and args[0] is not None:
        codec = args[1] if len(args) > 1 else None
        if codec and codec.replace("_", "").replace("-", "").lower() == "rot13":
            return codecs.decode(args[0], "rot13")
    if any(r.rsplit(".", 1)[-1] in ("b64decode", "standard_b64decode", "urlsafe_b64decode",
                                    "b32decode", "b16decode", "unhexlify", "a2b_hex",
                                    "fromhex") for r in resolved | {_attr(fn)}) and args and args[0]:
        try:
            raw = (bytes.fromhex(args[0]) if _attr(fn) in ("fromhex", "unhexlify", "a2b_hex")
                   else base64.b64decode(args[0]))
            return raw.decode("latin-1")
        except (ValueError, binascii.Error):
            return None
    return None


def _attr(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
