"""Run by the grader in the sandbox around `git apply`, with `python3 -I` (no user site,
no PYTHON* variables, no working directory on the path): which files the patch adds would be
imported in place of a module of the standard library, the test runner or an installed
distribution. Prints one JSON line; must run on Python 3.6.
"""

import json
import os
import pkgutil
import sys
import sysconfig

_RUNNER = {"pytest", "_pytest", "pluggy", "py", "iniconfig", "unittest", "doctest",
           "sitecustomize", "usercustomize", "conftest", "nose", "xmlrunner", "coverage"}
_SUFFIXES = (".py", ".pyc", ".pyw", ".pyd", ".so")


def _outside(work):
    """Import roots that are not the repository: the standard library and site-packages."""
    roots = []
    for p in sys.path:
        real = os.path.realpath(p) if p else ""
        if real and real != work and not real.startswith(work + os.sep):
            roots.append(p)
    return roots


def _known(work):
    names = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    stdlib = sysconfig.get_paths().get("stdlib")
    roots = [stdlib] if stdlib else []
    for _, name, _ in pkgutil.iter_modules(roots + _outside(work)):
        names.add(name)
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


def before(listing, out):
    """Keep the paths the patch will touch that do not exist yet: the files it adds."""
    new = [p for p in _paths(listing) if not os.path.lexists(p)]
    with open(out, "wb") as f:
        f.write(b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in new))


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
    {"before": before, "after": after}[sys.argv[1]](sys.argv[2], sys.argv[3])
