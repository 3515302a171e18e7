import pytest

from evaluator.grading import is_protected, patch_paths, unsafe_paths

PATCH = b"""diff --git a/src/m.py b/src/m.py
--- a/src/m.py
+++ b/src/m.py
@@ -1 +1 @@
-a
+b
diff --git a/old.py b/new.py
rename from old.py
rename to new.py
diff --git a/tests/conftest.py b/tests/conftest.py
new file mode 100644
--- /dev/null
+++ b/tests/conftest.py
@@ -0,0 +1 @@
+x
"""


def test_patch_paths_reads_every_header() -> None:
    assert patch_paths(PATCH) == ["new.py", "old.py", "src/m.py", "tests/conftest.py"]


@pytest.mark.parametrize("path", [
    "tests/test_x.py", "pkg/tests/helpers.py", "conftest.py", "sub/conftest.py", "pytest.ini",
    "tox.ini", "setup.cfg", "pyproject.toml", "test_thing.py", "pkg/thing_test.py",
    "sitecustomize.py", "evil.pth", "x.dist-info/entry_points.txt", "tests",
])
def test_protected_paths(path: str) -> None:
    assert is_protected(path)


@pytest.mark.parametrize("path", ["src/m.py", "pkg/testament.py", "README.md", "contest.py"])
def test_ordinary_paths_are_not_protected(path: str) -> None:
    assert not is_protected(path)


def test_extra_globs_from_task() -> None:
    assert is_protected("spec/model_spec.rb", ["spec/*"])


def test_unsafe_paths() -> None:
    assert unsafe_paths([".git/config", "a/../../etc/passwd", "/abs", "ok.py"]) == [
        ".git/config", "a/../../etc/passwd", "/abs"]


def test_names_git_quotes_are_read_as_git_reads_them() -> None:
    quoted = (b'diff --git "a/pkg/caf\\303\\251.pyc" "b/pkg/caf\\303\\251.pyc"\n'
              b'--- /dev/null\n+++ "b/pkg/caf\\303\\251.pyc"\n')
    assert patch_paths(quoted) == ["pkg/café.pyc"]
