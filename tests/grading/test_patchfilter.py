"""Leaving a patch's protected sections out, and reading git's own list of paths."""

from evaluator.grading._patchfilter import filter_patch, numstat_paths, sections

_TWO = (b"diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n"
        b"diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/tests/test_a.py\n"
        b"+++ b/tests/test_a.py\n@@ -1 +1 @@\n-assert 0\n+assert 1\n")


def test_sections_split_at_each_file_header() -> None:
    assert [s.split(b"\n")[0] for s in sections(_TWO)] == [
        b"diff --git a/src/a.py b/src/a.py", b"diff --git a/tests/test_a.py b/tests/test_a.py"]


def test_protected_sections_are_left_out_and_named() -> None:
    kept, dropped = filter_patch(_TWO, lambda p: p.startswith("tests/"))
    assert b"src/a.py" in kept and b"tests/" not in kept
    assert dropped == ["tests/test_a.py"]


def test_plain_unified_diffs_are_split_too() -> None:
    plain = (b"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
             b"--- a/conftest.py\n+++ b/conftest.py\n@@ -1 +1 @@\n-a\n+b\n")
    kept, dropped = filter_patch(plain, lambda p: p == "conftest.py")
    assert dropped == ["conftest.py"] and b"x.py" in kept and b"conftest" not in kept


def test_numstat_reads_plain_entries_and_renames() -> None:
    out = b"1\t1\tsrc/a.py\x000\t0\t\x00old/t.py\x00tests/t.py\x00"
    assert numstat_paths(out) == ["src/a.py", "old/t.py", "tests/t.py"]


def test_git_itself_names_the_paths_of_a_patch() -> None:
    from evaluator.grading._patchfilter import git_numstat

    assert git_numstat(_TWO) == ["src/a.py", "tests/test_a.py"]
