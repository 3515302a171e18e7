"""Leaving a patch's protected and opaque sections out, and reading git's own list of paths."""

import io
import tarfile
from typing import Any

import pytest

from evaluator.grading._patchfilter import (
    BINARY,
    BYTECODE,
    COMPILED,
    HIDDEN_TEXT,
    SYMLINK,
    filter_patch,
    git_opaque,
    numstat_paths,
    read_sources,
    sections,
)
from tests.grading.cheats import new_file

_TWO = (b"diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n"
        b"diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n"
        b"+++ b/tests/test_a.py\n@@ -1 +1 @@\n-assert 0\n+assert 1\n")


def test_sections_split_at_each_file_header() -> None:
    assert [s.split(b"\n")[0] for s in sections(_TWO)] == [
        b"diff --git a/src/a.py b/src/a.py", b"diff --git a/tests/test_a.py b/tests/test_a.py"]


def test_protected_sections_are_left_out_and_named() -> None:
    out = filter_patch(_TWO, lambda p: p.startswith("tests/"))
    assert b"src/a.py" in out.patch and b"tests/" not in out.patch
    assert out.protected == ["tests/test_a.py"] and out.opaque == []


def test_plain_unified_diffs_are_split_too() -> None:
    plain = (b"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
             b"--- a/conftest.py\n+++ b/conftest.py\n@@ -1 +1 @@\n-a\n+b\n")
    out = filter_patch(plain, lambda p: p == "conftest.py")
    assert out.protected == ["conftest.py"] and b"x.py" in out.patch and b"conftest" not in out.patch


def test_numstat_reads_plain_entries_and_renames() -> None:
    out = b"1\t1\tsrc/a.py\x000\t0\t\x00old/t.py\x00tests/t.py\x00"
    assert numstat_paths(out) == ["src/a.py", "old/t.py", "tests/t.py"]


def test_git_itself_names_the_paths_of_a_patch() -> None:
    from evaluator.grading._patchfilter import git_numstat

    assert git_numstat(_TWO) == ["src/a.py", "tests/test_a.py"]


def _binary(path: str) -> str:
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..3121b7b\n"
            "GIT binary patch\nliteral 4\nLcmXS@OlAN81N8w-\n\nliteral 0\nHcmV?d00001\n\n")


def _opaque(patch: str) -> list[tuple[str, str]]:
    out = filter_patch(patch.encode(), lambda p: False)
    assert out.patch == b"" or b"pkg/ok.py" in out.patch
    return out.opaque


@pytest.mark.parametrize(("path", "why"), [
    ("pkg/__pycache__/ops.cpython-311.pyc", BYTECODE), ("pkg/ops.pyc", BYTECODE),
    ("pkg/__pycache__/notes.txt", BYTECODE), ("pkg/_speedups.cpython-311-x86_64-linux-gnu.so", COMPILED),
    ("pkg/ops.abi3.so", COMPILED), ("pkg/ops.cp311-win_amd64.pyd", COMPILED), ("pkg/libx.dylib", COMPILED),
])
def test_bytecode_and_compiled_modules_are_dropped_by_name(path: str, why: str) -> None:
    assert _opaque(new_file(path, "print(1)\n") + new_file("pkg/ok.py", "x = 1\n")) == [(path, why)]


def test_binary_files_and_symlinks_are_dropped() -> None:
    link = ("diff --git a/pkg/ops.py b/pkg/ops.py\nnew file mode 120000\n--- /dev/null\n"
            "+++ b/pkg/ops.py\n@@ -0,0 +1 @@\n+../data/ops.txt\n\\ No newline at end of file\n")
    assert _opaque(_binary("pkg/blob.dat") + link) == [("pkg/blob.dat", BINARY), ("pkg/ops.py", SYMLINK)]


def test_a_coding_cookie_other_than_utf8_drops_the_file() -> None:
    hidden = "# coding: unicode_escape\n#\\x0aimport os\n"
    assert _opaque(new_file("pkg/m.py", hidden)) == [("pkg/m.py", "encoding unicode_escape")]
    assert _opaque(new_file("pkg/m.py", "#!/usr/bin/env python\n# vim: fileencoding=rot13\n"))
    assert _opaque(new_file("pkg/ok.py", "# -*- coding: utf-8 -*-\n")) == []


def test_a_cookie_written_over_line_one_of_a_changed_file_counts() -> None:
    patch = ("diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,2 +1,2 @@\n"
             "-import os\n+# coding: raw_unicode_escape\n x = 1\n")
    assert _opaque(patch) == [("pkg/m.py", "encoding raw_unicode_escape")]


def test_text_that_reads_otherwise_than_it_runs_drops_the_file() -> None:
    trojan = "access = 'user\u202e \u2066# admin\u2069 \u2066'\n"
    assert _opaque(new_file("pkg/auth.py", trojan)) == [("pkg/auth.py", HIDDEN_TEXT)]
    assert _opaque(new_file("pkg/ok.py", "name = 'שלום'\n")) == []


def test_deleting_an_opaque_file_is_readable_and_kept() -> None:
    gone = ("diff --git a/pkg/ops.pyc b/pkg/ops.pyc\ndeleted file mode 100644\n"
            "index 3121b7b..0000000\nBinary files a/pkg/ops.pyc and /dev/null differ\n")
    assert filter_patch(gone.encode(), lambda p: False).patch == gone.encode()


def test_git_itself_names_what_a_misread_section_would_carry() -> None:
    assert git_opaque(_binary("pkg/blob.dat").encode()) == ["pkg/blob.dat (binary file)"]
    assert git_opaque(new_file("pkg/x.so", "int x;\n").encode()) == ["pkg/x.so (compiled module)"]
    assert git_opaque(new_file("pkg/ok.py", "x = 1\n").encode()) == []


class _Tree:
    """A sandbox's files, as `read_file` answers for them."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def read_file(self, path: str, max_bytes: int = 0) -> bytes:
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path][:max_bytes]


def test_sources_are_read_back_and_a_cookie_the_split_missed_is_named() -> None:
    tree: Any = _Tree({"/w/pkg/a.py": b"x = 1\n", "/w/pkg/b.py": b"#!/bin/sh\n# coding: utf-7\n"})
    sources, bad = read_sources(tree, "/w", ["pkg/a.py", "pkg/b.py", "pkg/gone.py", "README"])
    assert sources == {"pkg/a.py": b"x = 1\n", "pkg/b.py": b"#!/bin/sh\n# coding: utf-7\n"}
    assert bad == ["pkg/b.py (encoding utf-7)"]


def test_sources_come_back_in_one_archive_where_the_image_made_one() -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("pkg/a.py")
        info.size = 6
        tar.addfile(info, io.BytesIO(b"y = 2\n"))
    tree: Any = _Tree({"/g/sources.tar": buf.getvalue(), "/w/pkg/a.py": b"stale\n"})
    assert read_sources(tree, "/w", ["pkg/a.py", "pkg/gone.py"], "/g/sources.tar") == (
        {"pkg/a.py": b"y = 2\n"}, [])
