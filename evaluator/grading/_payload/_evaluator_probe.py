"""Run by the grader in the sandbox after `git apply`, with `python3 -I` (no user site, no
PYTHON* variables, no working directory on the path), on the paths that did not exist before it
(the grader's shell lists them): which files the patch adds would be
imported in place of a module of the standard library, the test runner or an installed
distribution. Prints one JSON line; must run on Python 3.6.
"""

import json
import os
import sys

_RUNNER = {"pytest", "_pytest", "pluggy", "py", "iniconfig", "unittest", "doctest",
           "sitecustomize", "usercustomize", "conftest", "nose", "xmlrunner", "coverage"}
_SUFFIXES = (".py", ".pyc", ".pyw", ".pyd", ".so")


def _inside(path, work):
    real = os.path.realpath(path) if path else ""
    return not real or real == work or real.startswith(work + os.sep)


def _names_in(folder):
    """Top-level names importable from one folder (listing it is all pkgutil would do)."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return set()
    names = set()
    for entry in entries:
        if entry.endswith(_SUFFIXES):
            names.add(entry.split(".", 1)[0])
        elif "." not in entry and os.path.isdir(os.path.join(folder, entry)):
            names.add(entry)
    return names


def _known(work):
    """Names the interpreter resolves outside the repository: the standard library (its own
    list on 3.10+, else its folder), builtins, site-packages, and the test runner's."""
    names = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    roots = [p for p in sys.path if not _inside(p, work)]
    if not hasattr(sys, "stdlib_module_names"):
        roots.append(os.path.dirname(os.__file__))
    for root in roots:
        names |= _names_in(root)
    return names | _RUNNER


def _candidate(rel):
    """(import root, top-level name) a new file could provide, or None."""
    folder, base = os.path.split(rel)
    if base.startswith("__init__."):
        folder, base = os.path.split(folder)
        return (folder, base) if base else None
    if base.endswith(_SUFFIXES):
        return folder, base.split(".", 1)[0]
    return None


def _paths(listing):
    with open(listing, "rb") as f:
        return [p.decode("utf-8", "surrogateescape") for p in f.read().split(b"\0") if p]


def after(listing, work):
    added = _paths(listing)
    work = os.path.realpath(work)
    known = None
    hits = []
    for rel in added:
        cand = _candidate(rel)
        if cand is None:
            continue
        root, name = cand
        # Inside a regular package a module is reached through the package, not as `name`.
        if root and os.path.exists(os.path.join(work, root, "__init__.py")):
            continue
        known = _known(work) if known is None else known
        if name in known:
            hits.append([rel, name])
    sys.stdout.write("@@evaluator-probe " + json.dumps(hits) + "\n")


if __name__ == "__main__":
    after(sys.argv[1], sys.argv[2])
