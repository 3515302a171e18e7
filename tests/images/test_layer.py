"""Layers and configs written by the harness: the bytes depend on content, never on the clock."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
from pathlib import Path

import docker
import pytest

from evaluator.images._layer import (
    CREATED,
    EPOCH,
    Entry,
    image_config,
    load_image,
    tree_entries,
    write_layer,
)


def _tree(root: Path, mtime: int) -> Path:
    for rel, text in {"b/z.txt": "z", "a/y.txt": "y", "a-b": "dash", "top": "t"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    os.link(root / "a/y.txt", root / "b/hard")
    (root / "link").symlink_to("a/y.txt")
    for path in [*root.rglob("*"), root]:
        os.utime(path, (mtime, mtime), follow_symlinks=False)
    return root


def _layer(entries: list[Entry]) -> tuple[str, bytes]:
    buf = io.BytesIO()
    digest = write_layer(entries, buf)
    return digest, buf.getvalue()


def test_same_tree_at_other_times_gives_the_same_layer(tmp_path: Path) -> None:
    a = _layer(tree_entries(_tree(tmp_path / "a", 1_000_000_000)))
    b = _layer(tree_entries(_tree(tmp_path / "b", 1_700_000_000)))
    assert a == b
    assert a[0] == "sha256:" + hashlib.sha256(a[1]).hexdigest()


def test_entries_are_sorted_with_hard_links_after_their_target(tmp_path: Path) -> None:
    _, data = _layer(list(reversed(tree_entries(_tree(tmp_path / "t", 0)))))
    members = tarfile.open(fileobj=io.BytesIO(data)).getmembers()
    names = [m.name for m in members]
    assert names == ["a", "a/y.txt", "a-b", "b", "b/hard", "b/z.txt", "link", "top"]
    hard = members[names.index("b/hard")]
    assert hard.islnk() and hard.linkname == "a/y.txt"
    assert {m.mtime for m in members} == {EPOCH} and {m.uname for m in members} == {""}


def test_content_change_changes_the_layer(tmp_path: Path) -> None:
    before = _layer(tree_entries(_tree(tmp_path / "a", 0)))[0]
    (tmp_path / "a/top").write_text("T")
    assert _layer(tree_entries(tmp_path / "a"))[0] != before


@pytest.mark.docker
def test_loaded_image_id_is_the_config_hash(docker_client: docker.DockerClient,
                                            tmp_path: Path) -> None:
    layer = tmp_path / "layer.tar"
    with layer.open("wb") as out:
        diff_id = write_layer([Entry("hello", tarfile.REGTYPE, 0o644, data=b"hi\n")], out)
    config = image_config([diff_id], {"Labels": {"test": "1"}},
                          [{"created": CREATED}], "amd64")
    tag = "evaluator-test/layer-only:1"
    image_id = load_image(docker_client, tag, config, [(diff_id, layer)])
    try:
        image = docker_client.images.get(tag)
        assert image_id == image.id == "sha256:" + hashlib.sha256(config).hexdigest()
        assert image.attrs["RootFS"]["Layers"] == [diff_id]
        assert image.attrs["Created"].startswith("2000-01-01T00:00:00")
    finally:
        docker_client.images.remove(tag)
