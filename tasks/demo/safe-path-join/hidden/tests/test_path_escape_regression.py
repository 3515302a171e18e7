import os

import pytest

from filestore import LocalStorage, StaticResolver, UnsafePathError, UploadHandler, safe_join


def test_sibling_directory_sharing_prefix_is_rejected(tmp_path):
    root = str(tmp_path / "data")
    for name in ["../data-evil/x.txt", "../data2", "..\\data.bak\\dump.sql", "sub/../../data_old/a"]:
        with pytest.raises(UnsafePathError):
            safe_join(root, name)


def test_storage_cannot_read_prefixed_sibling(tmp_path):
    storage = LocalStorage(tmp_path / "media")
    private = tmp_path / "media-private"
    private.mkdir()
    (private / "secret.txt").write_bytes(b"top secret")
    with pytest.raises(UnsafePathError):
        storage.read("../media-private/secret.txt")
    with pytest.raises(UnsafePathError):
        storage.save("../media-private/planted.txt", b"x")
    assert not (private / "planted.txt").exists()


def test_static_url_cannot_reach_prefixed_sibling(tmp_path):
    root = tmp_path / "assets"
    root.mkdir()
    backup = tmp_path / "assets-backup"
    backup.mkdir()
    (backup / "db.sqlite").write_bytes(b"SQLite format 3")
    resolver = StaticResolver(root)
    with pytest.raises(UnsafePathError):
        resolver.resolve("/static/..%2fassets-backup/db.sqlite")


def test_download_cannot_escape_into_prefixed_sibling(tmp_path):
    handler = UploadHandler(LocalStorage(tmp_path / "media"))
    old = tmp_path / "media-old" / "users"
    old.mkdir(parents=True)
    (old / "export.csv").write_bytes(b"a,b")
    with pytest.raises(UnsafePathError):
        handler.download(7, "../../../media-old/users/export.csv")


def test_root_itself_and_trailing_separator(tmp_path):
    root = str(tmp_path / "data")
    assert safe_join(root + os.sep, "a.txt") == os.path.join(root, "a.txt")
    assert safe_join(root, "a/..") == root
    assert safe_join(root, "data-evil/x") == os.path.join(root, "data-evil", "x")


def test_plain_parent_escape_still_rejected(tmp_path):
    storage = LocalStorage(tmp_path / "media")
    (tmp_path / "outside.txt").write_bytes(b"x")
    with pytest.raises(UnsafePathError):
        storage.read("../outside.txt")
