"""Generated repositories as big and as awkward as real ones; never downloaded.

`big_repo` writes a project of tens of thousands of files and hundreds of MB with its own git
history, an ignored build folder and an untracked file, and `awkward_suite` a small project whose
tests come from mixins and base classes in other files, nested classes and parametrized ids with
spaces and brackets, in a src layout that imports an ignored, generated `_version.py`.
"""

from __future__ import annotations

import base64
import os
import random
import subprocess
import tempfile
import textwrap
from pathlib import Path
from typing import Any

_GIT_ENV = {"GIT_AUTHOR_NAME": "fixture", "GIT_AUTHOR_EMAIL": "fixture@localhost",
            "GIT_COMMITTER_NAME": "fixture", "GIT_COMMITTER_EMAIL": "fixture@localhost",
            "GIT_AUTHOR_DATE": "2001-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2001-01-01T00:00:00Z"}

BIG_BUG = "def clamp(x, lo, hi):\n    return max(lo, min(x, lo))\n"
BIG_FIX = "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n"
BIG_TESTS = {
    "tests/test_core.py": "from bigpkg.core import clamp\n\n\ndef test_low():\n"
                          "    assert clamp(-5, 0, 10) == 0\n",
}
BIG_HIDDEN = {
    "tests/test_clamp_hidden.py": "from bigpkg.core import clamp\n\n\ndef test_high():\n"
                                  "    assert clamp(50, 0, 10) == 10\n\n\ndef test_inside():\n"
                                  "    assert clamp(5, 0, 10) == 5\n",
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, **_GIT_ENV})


def big_repo(root: Path, *, files: int = 20_000, mb: float = 100, seed: int = 0) -> Path:
    """A git repository of `files` files and about `mb` MB of text, three commits deep."""
    rng = random.Random(seed)
    per_file = max(int(mb * 1_000_000) // files, 40)
    for i in range(files):
        path = root / "bigpkg" / f"m{i // 500:03d}" / f"f{i:05d}.py"
        if i % 500 == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            (path.parent / "__init__.py").write_text("")
        # Hex of random bytes: real source does not compress to nothing, and neither does this.
        path.write_text(f"DATA = '{rng.randbytes(per_file // 2 - 16).hex()}'\n")
    (root / "bigpkg" / "__init__.py").write_text("")
    (root / "bigpkg" / "core.py").write_text("def clamp(x, lo, hi):\n    return x\n")
    for rel, text in BIG_TESTS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\npythonpath = .\n")
    (root / ".gitignore").write_text("build/\n__pycache__/\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "import")
    (root / "bigpkg" / "core.py").write_text("def clamp(x, lo, hi):\n    return min(x, hi)\n")
    _git(root, "commit", "-q", "-am", "clamp above")
    (root / "bigpkg" / "core.py").write_text(BIG_BUG)
    _git(root, "commit", "-q", "-am", "clamp below too")
    # Left by a build: ignored, and an untracked note no rule covers; both are in the image.
    (root / "build" / "lib").mkdir(parents=True)
    (root / "build" / "lib" / "artifact.so").write_bytes(rng.randbytes(4096))
    (root / "NOTES.local").write_text("a developer's scratch file, neither tracked nor ignored\n")
    return root


def big_gold() -> str:
    return ("diff --git a/bigpkg/core.py b/bigpkg/core.py\n--- a/bigpkg/core.py\n"
            "+++ b/bigpkg/core.py\n@@ -1,2 +1,2 @@\n def clamp(x, lo, hi):\n"
            "-    return max(lo, min(x, lo))\n+    return max(lo, min(x, hi))\n")


def dockerfile(base_id: str, user: str = "1000:1000", workdir: str = "/testbed") -> str:
    """How a user would build an image around their checkout (history included)."""
    return f"FROM {base_id}\nCOPY --chown={user} repo/ {workdir}/\nUSER {user}\nWORKDIR {workdir}\n"


def build_big_image(tag: str, base_id: str, **repo: Any) -> str:
    """`big_repo(**repo)` in an image tagged `tag`, built as a user would with `docker build`;
    an image already tagged so is reused."""
    if subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode == 0:
        return tag
    with tempfile.TemporaryDirectory() as ctx:
        big_repo(Path(ctx) / "repo", **repo)
        (Path(ctx) / "Dockerfile").write_text(dockerfile(base_id))
        # The CLI streams the context from Go: twice as fast as the SDK's tar for 200 MB.
        subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, ctx], check=True,
                       capture_output=True, env={**os.environ, "DOCKER_BUILDKIT": "0"})
    return tag


AWKWARD_FILES = {
    ".gitignore": "src/shapes/_version.py\n*.egg-info/\nbuild/\n",
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = src\n",
    "src/shapes/__init__.py": "from shapes._version import VERSION\nfrom shapes.area import area\n",
    # Generated at install time and ignored: the package cannot import without it.
    "src/shapes/_version.py": 'VERSION = "1.2.3"\n',
    "src/shapes.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: shapes\nVersion: 1.2.3\n",
    "build/lib/shapes/area.py": "# a stale copy a build left behind\n",
    "src/shapes/area.py": textwrap.dedent("""\
        def area(kind, *dims):
            if kind == "square":
                return dims[0] * dims[0]
            if kind == "rect":
                return dims[0] + dims[1]
            raise ValueError(kind)
        """),
    "tests/__init__.py": textwrap.dedent("""\
        from shapes import area


        class SquareMixin:
            def test_square(self):
                assert area("square", 3) == 9


        class RectMixin:
            def test_rect(self):
                assert area("rect", 2, 3) == 6
        """),
    "tests/base.py": textwrap.dedent("""\
        import unittest

        import shapes


        class ShapeBase(unittest.TestCase):
            def test_version(self):
                assert shapes.VERSION == "1.2.3"
        """),
    "tests/test_square.py": textwrap.dedent("""\
        import unittest

        from tests import SquareMixin
        from tests.base import ShapeBase


        class TestSquare(SquareMixin, ShapeBase):
            pass
        """),
}
AWKWARD_HIDDEN = {
    "tests/test_rect.py": textwrap.dedent("""\
        import unittest

        import pytest

        from shapes import area
        from tests import RectMixin
        from tests.base import ShapeBase


        class TestRect(RectMixin, ShapeBase):
            pass


        class TestOuter:
            class TestInner:
                def test_nested(self):
                    assert area("rect", 4, 5) == 20


        @pytest.mark.parametrize("dims", [(2, 3), (1, 1)], ids=["2 x 3", "[1, 1]"])
        def test_param(dims):
            assert area("rect", *dims) == dims[0] * dims[1]
        """),
}
AWKWARD_F2P = [
    "tests/test_rect.py::TestRect::test_rect",
    "tests/test_rect.py::TestOuter::TestInner::test_nested",
    "tests/test_rect.py::test_param[2 x 3]",
]
AWKWARD_P2P = [
    "tests/test_rect.py::TestRect::test_version",
    "tests/test_rect.py::test_param[[1, 1]]",
    "tests/test_square.py::TestSquare::test_square",
    "tests/test_square.py::TestSquare::test_version",
]
AWKWARD_GOLD = textwrap.dedent("""\
    diff --git a/src/shapes/area.py b/src/shapes/area.py
    --- a/src/shapes/area.py
    +++ b/src/shapes/area.py
    @@ -2,5 +2,5 @@ def area(kind, *dims):
         if kind == "square":
             return dims[0] * dims[0]
         if kind == "rect":
    -        return dims[0] + dims[1]
    +        return dims[0] * dims[1]
         raise ValueError(kind)
    """)


# A repository with every kind of later work an upstream clone can carry, built with the base
# image's own git so its paths are the image's: the base commit on `main` (reset there), two
# later commits (the fix, more work) on a branch, tags on both sides of the base, a remote ref,
# a note, a replace ref, a stash, dangling objects, packed refs, reflogs, ORIG_HEAD,
# FETCH_HEAD, a shallow file naming a later commit, a worktree of the branch at /srv/wt, and an
# alternates store at /srv/cache.git cloned before the reset. Every later object carries
# LEAK_MARK, so a leak shows as that text or as a later object's sha.
LEAK_MARK = "FUTURE-8d2c"
LEAKY_FIX = ("diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n"
             " def add(a, b):\n-    return a - b\n+    return a + b  # " + LEAK_MARK + "\n")
_LEAKY_BUILD = r"""set -e
export GIT_AUTHOR_NAME=f GIT_AUTHOR_EMAIL=f@l GIT_COMMITTER_NAME=f GIT_COMMITTER_EMAIL=f@l
day() { export GIT_AUTHOR_DATE="2001-01-0$1T00:00:00Z" GIT_COMMITTER_DATE="2001-01-0$1T00:00:00Z"; }
M=%(mark)s
mkdir -p /testbed /srv && cd /testbed && git init -q -b main .
day 1; printf 'def add(a, b):\n    return a - b\n' > calc.py; echo 1 > VERSION
git add -A; git commit -qm first; git tag v0.1; git tag -a v0.2 -m 'release 0.2'
day 2; echo docs > README; git add -A; git commit -qm second; base=$(git rev-parse HEAD)
day 3; printf 'def add(a, b):\n    return a + b  # %%s\n' "$M" > calc.py; git commit -qam "$M fix"
day 4; echo "$M" > LATER; git add -A; git commit -qm "$M more"
git branch fix; git tag -a v2.0 -m "$M release"; git tag v2.1
git update-ref refs/remotes/origin/main HEAD; git config remote.origin.url https://example.invalid/x
git notes add -m "$M note" "$base"
git clone -q --bare /testbed /srv/cache.git
git worktree add -q /srv/wt fix
git reset -q --hard "$base"
echo "$M stash" >> README; git stash -q
echo "$M dangling" | git hash-object -w --stdin > /dev/null
git commit-tree -m "$M dangling" "$base^{tree}" > /dev/null
git pack-refs --all
printf '%%s\t\tbranch main of https://example.invalid/x\n' "$(git rev-parse fix)" > .git/FETCH_HEAD
git rev-parse fix > .git/shallow
echo /srv/cache.git/objects > .git/objects/info/alternates
first=$(git rev-list --max-parents=0 "$base")
git replace "$first" "$(git commit-tree -m "$M replacement" "$base^{tree}")"
chown -R 1000:1000 /testbed /srv
"""


def build_leaky_image(tag: str, base_id: str) -> str:
    """The leaky repository above at /testbed of an image tagged `tag` (reused if present); the
    tag is also a label, so each tag is an image of its own with seals of its own."""
    if subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode != 0:
        with tempfile.TemporaryDirectory() as ctx:
            (Path(ctx) / "build.sh").write_text(_LEAKY_BUILD % {"mark": LEAK_MARK})
            (Path(ctx) / "Dockerfile").write_text(
                f"FROM {base_id}\nLABEL evaluator.test={tag}\nUSER root\nCOPY build.sh /build.sh\n"
                "RUN sh /build.sh && rm /build.sh\nUSER 1000:1000\nWORKDIR /testbed\n")
            subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, ctx],
                           check=True, capture_output=True,
                           env={**os.environ, "DOCKER_BUILDKIT": "0"})
    out = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", tag], check=True,
                         capture_output=True, text=True)
    return out.stdout.strip()


def long_history_repo(root: Path, *, commits: int = 50_000, kb_per_commit: float = 8.0,
                      later: int = 1_000, files: int = 2_000, tag_every: int = 2_500,
                      seed: int = 0) -> str:
    """An upstream-shaped clone written by `git fast-import` in one pass: `files` files, then
    `commits` commits up to the base (each rewrites one file with `kb_per_commit` KB that does
    not compress away, as a project's history of edits), `later` commits past it on `upstream`
    (the future), a tag every `tag_every` commits on both sides; `main` (HEAD) at the base, its
    tree checked out. Returns the base commit's sha."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    paths = [f"pkg/m{i // 100:03d}/f{i:05d}.py" for i in range(files)]
    proc = subprocess.Popen(["git", "-C", str(root), "fast-import", "--quiet", "--done"],
                            stdin=subprocess.PIPE, env={**os.environ, **_GIT_ENV})
    assert proc.stdin is not None
    out = proc.stdin
    raw = max(int(kb_per_commit * 1000 * 3 / 4), 16)  # base64 text packs to about 3/4 again

    def data(text: bytes) -> None:
        out.write(b"data %d\n%s\n" % (len(text), text))

    def body(i: int) -> bytes:
        chunk = base64.b64encode(rng.randbytes(raw))
        return b"DATA = (\n" + b"\n".join(b"    '%s'" % chunk[j:j + 76]
                                         for j in range(0, len(chunk), 76)) + b"\n)\n"

    for i in range(commits + later):
        ref = b"refs/heads/main" if i < commits else b"refs/heads/upstream"
        if i == commits:
            out.write(b"reset refs/heads/upstream\nfrom :%d\n\n" % commits)
        out.write(b"commit %s\nmark :%d\ncommitter Dev <dev@localhost> %d +0000\n"
                  % (ref, i + 1, 1_000_000_000 + 600 * i))
        data(b"change %d" % i)
        if i == 0:
            for p in paths:
                out.write(b"M 100644 inline %s\n" % p.encode())
                data(b"VALUE = %d\n" % len(p))
        else:
            out.write(b"M 100644 inline %s\n" % paths[rng.randrange(files)].encode())
            data(body(i))
        out.write(b"\n")
        if (i + 1) % tag_every == 0:
            out.write(b"reset refs/tags/v%d\nfrom :%d\n\n" % ((i + 1) // tag_every, i + 1))
    out.write(b"done\n")
    out.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    _git(root, "reset", "-q", "--hard", "main")
    return subprocess.run(["git", "-C", str(root), "rev-parse", "main"], check=True,
                          capture_output=True, text=True).stdout.strip()
