import os

import pytest

from filestore import UnsafePathError, clean_relative_path, safe_join


def test_clean_relative_path_normalises():
    assert clean_relative_path("./a//b/../c.txt") == "a/c.txt"
    assert clean_relative_path("css\\site.css") == "css/site.css"
    assert clean_relative_path(".") == ""


def test_safe_join_nested(tmp_path):
    root = str(tmp_path / "data")
    assert safe_join(root, "a", "b.txt") == os.path.join(root, "a", "b.txt")
    assert safe_join(root, "a/../b.txt") == os.path.join(root, "b.txt")
    assert safe_join(root) == root


def test_safe_join_rejects_escapes(tmp_path):
    root = str(tmp_path / "data")
    for name in ["../secret.txt", "a/../../secret.txt", "..\\..\\secret.txt", "/etc/passwd", "C:\\Windows\\win.ini"]:
        with pytest.raises(UnsafePathError):
            safe_join(root, name)


def test_nul_byte_rejected(tmp_path):
    with pytest.raises(UnsafePathError):
        safe_join(str(tmp_path), "a\x00.txt")
