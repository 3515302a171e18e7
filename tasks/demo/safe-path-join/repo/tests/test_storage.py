import io

import pytest

from filestore import LocalStorage, UnsafePathError


@pytest.fixture
def storage(tmp_path):
    return LocalStorage(tmp_path / "media")


def test_save_and_read(storage):
    assert storage.save("docs/a.txt", b"hello") == "docs/a.txt"
    assert storage.read("docs/a.txt") == b"hello"
    assert storage.exists("docs/a.txt")
    assert storage.size("docs//./a.txt") == 5


def test_save_stream_and_refuse_overwrite(storage):
    storage.save("b.bin", io.BytesIO(b"x" * 100_000))
    with pytest.raises(FileExistsError):
        storage.save("b.bin", b"y")
    storage.save("b.bin", b"y", overwrite=True)
    assert storage.read("b.bin") == b"y"


def test_listdir_and_delete(storage):
    storage.save("d/one.txt", b"1")
    storage.save("d/sub/two.txt", b"2")
    assert storage.listdir("d") == (["sub"], ["one.txt"])
    assert storage.delete("d/one.txt") is True
    assert storage.delete("d/one.txt") is False


def test_read_outside_root_rejected(storage):
    with pytest.raises(UnsafePathError):
        storage.read("../../etc/passwd")


def test_url_is_quoted(storage):
    assert storage.url("my docs/a b.txt") == "/media/my%20docs/a%20b.txt"
