"""Building the battery's patches: text sections, a module injected into the package under test,
the layout's partial fix as cover, and git's own diff for what text cannot carry (binary files,
symlinks)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import textwrap
from pathlib import Path

from tests.grading.layouts import Layout


def new_file(path: str, text: str) -> str:
    lines = text.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1,{len(lines)} @@\n{body}")


def replace_file(path: str, old: str, new: str) -> str:
    a, b = old.splitlines(), new.splitlines()
    body = "".join(f"-{line}\n" for line in a) + "".join(f"+{line}\n" for line in b)
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{len(a)} +1,{len(b)} @@\n{body}"


def pkg(lay: Layout) -> str:
    return lay.pkg_dir.rsplit("/", 1)[-1]


def import_line(lay: Layout, module: str = "_x") -> str:
    """The package's __init__ importing one more of its modules (so it runs during collection)."""
    init = f"{lay.pkg_dir}/__init__.py"
    return (f"diff --git a/{init} b/{init}\n--- a/{init}\n+++ b/{init}\n@@ -1 +1,2 @@\n"
            f" {lay.init_line}\n+import {pkg(lay)}.{module}\n")


def inject(lay: Layout, code: str) -> str:
    """A module of the package under test, imported by its __init__ (so during collection)."""
    return new_file(f"{lay.pkg_dir}/_x.py", textwrap.dedent(code)) + import_line(lay)


def cover(lay: Layout) -> str:
    """The layout's plausible partial fix: alone it leaves a required test failing."""
    return replace_file(lay.buggy, lay.broken, lay.partial)


def git_patch(lay: Layout, files: dict[str, bytes | Path], *, edits: str = "") -> str:
    """`git diff --binary` of the layout's repository with `files` added (bytes: a file; a Path:
    a symlink to it), then the text patch `edits` (already in the diff's format) appended."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, text in lay.repo.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false"]
        subprocess.run([*git, "init", "-q"], cwd=root, check=True)
        subprocess.run([*git, "add", "-A"], cwd=root, check=True)
        subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
        for rel, data in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, Path):
                os.symlink(data, path)
            else:
                path.write_bytes(data)
        subprocess.run([*git, "add", "-A"], cwd=root, check=True)
        diff = subprocess.run([*git, "diff", "--cached", "--binary"], cwd=root, check=True,
                              capture_output=True).stdout.decode()
    return diff + edits
