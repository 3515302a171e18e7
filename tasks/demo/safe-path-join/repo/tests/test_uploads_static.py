import pytest

from filestore import FileTooLarge, LocalStorage, NotAllowed, StaticResolver, UploadHandler
from filestore.uploads import secure_filename


def test_secure_filename():
    assert secure_filename("../../etc/passwd") == "passwd"
    assert secure_filename("C:\\Users\\me\\My CV (final).pdf") == "My_CV_final_.pdf"
    assert secure_filename("...") == "upload"


def test_upload_is_stored_per_user_with_unique_names(tmp_path):
    handler = UploadHandler(LocalStorage(tmp_path / "media"))
    first = handler.store(7, "photo.png", b"png")
    second = handler.store(7, "photo.png", b"png2")
    assert first.name == "users/7/photo.png"
    assert second.name == "users/7/photo-2.png"
    assert handler.download(7, "photo-2.png") == b"png2"


def test_upload_validation(tmp_path):
    handler = UploadHandler(LocalStorage(tmp_path / "media"), max_bytes=3)
    with pytest.raises(NotAllowed):
        handler.store(1, "run.sh", b"x")
    with pytest.raises(FileTooLarge):
        handler.store(1, "a.txt", b"xxxx")


def test_static_resolves_files_and_index(tmp_path):
    root = tmp_path / "assets"
    (root / "css").mkdir(parents=True)
    (root / "css" / "site.css").write_text("body{}")
    (root / "docs").mkdir()
    (root / "docs" / "index.html").write_text("<h1>docs</h1>")
    resolver = StaticResolver(root)
    css = resolver.resolve("/static/css/site.css?v=3")
    assert css.content_type == "text/css; charset=utf-8"
    assert css.size == 6
    assert resolver.resolve("/static/docs/").path.endswith("index.html")
    assert resolver.resolve("/static/missing.css") is None
    assert resolver.resolve("/other/css/site.css") is None
