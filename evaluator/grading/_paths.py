"""Which repository paths count as tests or test configuration, restored before every grade."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

# Files that configure how tests are collected or run, or that Python imports on its own.
_CONFIG_NAMES = {
    "conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "noxfile.py",
    "sitecustomize.py", "usercustomize.py", ".coveragerc", "pytest.toml", ".pytest.ini",
}
_TEST_DIRS = {"test", "tests", "testing"}
_TEST_FILE_GLOBS = ("test_*.py", "*_test.py", "tests.py")
_META_SUFFIXES = (".dist-info", ".egg-info", ".egg-link", ".pth", ".egg")


def is_protected(path: str, extra_globs: list[str] | tuple[str, ...] = ()) -> bool:
    """True for test files, test folders, test configuration and import hooks.

    A patch may change them in its sandbox, but grading puts them back as at the base commit,
    so editing a test (or adding a plugin, a .pth or a sitecustomize) cannot make a test pass.
    """
    p = PurePosixPath(path)
    if any(part in _TEST_DIRS for part in p.parts[:-1]) or p.name in _TEST_DIRS:
        return True
    if p.name in _CONFIG_NAMES:
        return True
    # importlib.metadata matches these in any letter case, so the check does too.
    if any(part.lower().endswith(_META_SUFFIXES) for part in p.parts):
        return True
    if p.name.lower() in _CONFIG_NAMES:
        return True
    if any(fnmatch.fnmatch(p.name, g) for g in _TEST_FILE_GLOBS):
        return True
    return any(fnmatch.fnmatch(path, g) for g in extra_globs)


def patch_paths(patch: bytes) -> list[str]:
    """Paths a unified/git diff names, read from its headers (before anything is applied);
    names git quotes (`"a/caf\\303\\251.py"`) are read as git reads them."""
    paths: set[str] = set()
    for raw in patch.decode("utf-8", errors="surrogateescape").splitlines():
        for prefix in ("--- ", "+++ ", "rename from ", "rename to ", "copy from ", "copy to "):
            if raw.startswith(prefix):
                name = _unquote(raw[len(prefix):].split("\t")[0].strip())
                if prefix not in ("--- ", "+++ "):
                    paths.add(name)
                elif name.startswith(("a/", "b/")):
                    paths.add(name[2:])
        if raw.startswith("diff --git "):
            rest = raw[len("diff --git "):]
            if rest.startswith('"'):
                left, _, right = rest.partition('" ')
                names = [_unquote(left + '"'), _unquote(right)]
            else:
                a, _, b = rest.partition(" b/")
                names = [a, "b/" + b] if b else []
            paths.update(n[2:] for n in names if n.startswith(("a/", "b/")))
    return sorted(p for p in paths if p and p != "/dev/null")


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(name: str) -> str:
    """A path as git writes it with core.quotePath: in double quotes, C escapes, octal bytes."""
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    out = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body):
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(_ESCAPES.get(nxt, ord(nxt)))
            i += 2
            continue
        out.extend(ch.encode("utf-8", "surrogateescape"))
        i += 1
    return out.decode("utf-8", "surrogateescape")


def unsafe_paths(paths: list[str]) -> list[str]:
    """Paths no patch may touch: the git directory, absolute paths, or ones leaving the repo."""
    bad = []
    for path in paths:
        parts = PurePosixPath(path).parts
        if path.startswith("/") or ".." in parts or ".git" in parts:
            bad.append(path)
    return bad
