"""Parsing Python source from any thread.

CPython 3.11 before 3.11.8 keeps the AST validator's recursion depth in state shared by every
thread, so two `ast.parse` calls at once can fail with "SystemError: AST constructor recursion
depth mismatch" (python/cpython#106905). The API server loads agents from request threads and a
Ray node grades in threads, so every parse of the harness goes through one lock.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["parse"]

_lock = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)`, one at a time per process."""
    with _lock:
        return ast.parse(source, filename=filename)
