"""Patches for the policy's tests: a new file, or a change made with difflib (git's shape), and
the reasons the policy finds in them."""

from __future__ import annotations

import difflib

from evaluator.policy import scan_patch
from tests.grading.cheats import new_file


def changed(path: str, old: str, new: str) -> bytes:
    body = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        f"a/{path}", f"b/{path}", n=1))
    return f"diff --git a/{path} b/{path}\n{body}".encode()


def reasons(code: str, path: str = "pkg/mod.py") -> set[str]:
    return {f.reason for f in scan_patch(new_file(path, code).encode())}


def fatal(code: str, path: str = "pkg/mod.py") -> set[str]:
    return {f.reason for f in scan_patch(new_file(path, code).encode()) if f.fatal}


def in_context(path: str, old: str, new: str) -> set[str]:
    """Reasons found with the whole new file at hand, as the grader reads it back."""
    return {f.reason for f in scan_patch(changed(path, old, new), {path: new.encode()})}
