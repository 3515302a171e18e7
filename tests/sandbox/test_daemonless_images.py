"""The daemonless backend's images: by digest from a registry, from the archives `docker save`
writes, each layer unpacked once with its whiteouts, and the same ids (so the same keys) as on
Docker."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import docker
import pytest

from evaluator.errors import BadInputError, InfraError
from evaluator.images._layer import Entry
from evaluator.lock import DockerPinResolver
from evaluator.sandbox import DaemonlessSandboxes, DockerSandboxes, ImageStore, SandboxLimits
from tests.daemonless import on_both
from tests.helpers import unavailable

pytestmark = pytest.mark.docker

# Over the base image: a file deleted, a folder replaced whole, a file of the sandbox user's.
_GONE_AND_OPAQUE = [
    Entry("etc/.wh.issue", tarfile.REGTYPE, 0o644, data=b""),
    Entry("usr/share/doc", tarfile.DIRTYPE, 0o755),
    Entry("usr/share/doc/.wh..wh..opq", tarfile.REGTYPE, 0o644, data=b""),
    Entry("usr/share/doc/mine", tarfile.REGTYPE, 0o640, uid=1000, gid=1000, data=b"mine\n"),
]
# An image of one small layer, nothing to run: for what moves images, not what runs them.
_TINY = [Entry("hello", tarfile.REGTYPE, 0o644, data=b"hi\n"), Entry("d", tarfile.DIRTYPE, 0o755),
         Entry("d/.wh.gone", tarfile.REGTYPE, 0o644, data=b"")]


@pytest.fixture(scope="module")
def tiny(docker_client: docker.DockerClient, daemonless_sandboxes: DaemonlessSandboxes,
         tmp_path_factory: pytest.TempPathFactory) -> str:
    made, _ = on_both(docker_client, daemonless_sandboxes, "evaluator-test/tiny:1", None, _TINY,
                      tmp_path_factory.mktemp("tiny"))
    return made


def test_an_image_made_alike_has_one_id_and_one_view(
        docker_client: docker.DockerClient, sandboxes: DockerSandboxes,
        daemonless_sandboxes: DaemonlessSandboxes, base_image: str, tmp_path: Path) -> None:
    on_docker, here = on_both(docker_client, daemonless_sandboxes, "evaluator-test/whiteouts:1",
                              base_image, _GONE_AND_OPAQUE, tmp_path)
    assert here == on_docker  # the same id, so the same keys
    look = "cat /etc/issue; ls /usr/share/doc; stat -c '%U %a' /usr/share/doc/mine /etc/passwd"
    seen = []
    for backend in (sandboxes, daemonless_sandboxes):
        with backend.open(here, SandboxLimits(), purpose="test") as sb:
            seen.append(sb.exec(look).output)
    assert seen[0] == seen[1]
    assert seen[1].splitlines() == ["cat: /etc/issue: No such file or directory", "mine",
                                    "agent 640", "root 644"], seen[1]


def test_pulled_by_digest_from_a_registry(registry: str,
                                          docker_client: docker.DockerClient, tiny: str,
                                          tmp_path: Path) -> None:
    repo = f"{registry}/evaluator-test/tiny"
    docker_client.images.get(tiny).tag(repo, "1")
    docker_client.images.push(repo, "1")
    pinned = DockerPinResolver(docker_client).image(f"{repo}:1")
    store = ImageStore(tmp_path)
    store.pull(pinned)
    assert store.require(pinned).id == tiny
    (layer,) = store.require(tiny).layers
    assert (layer / "hello").read_text() == "hi\n" and (layer / "d" / "gone").is_char_device()
    with pytest.raises(BadInputError, match="by digest"):
        store.pull(f"{repo}:1")


def test_a_docker_archive_loads_and_exports_with_its_id(tiny: str, tmp_path: Path) -> None:
    store = ImageStore(tmp_path)
    store.load(subprocess.run(["docker", "save", "evaluator-test/tiny:1"], capture_output=True,
                              check=True).stdout)
    assert store.require("evaluator-test/tiny:1").id == tiny
    again = ImageStore(tmp_path / "again")
    again.load(store.export(tiny))
    assert again.require(tiny).id == tiny


def test_a_layer_that_is_not_its_digest_is_refused(tiny: str, tmp_path: Path) -> None:
    archive = tmp_path / "image.tar"
    archive.write_bytes(subprocess.run(["docker", "save", tiny], capture_output=True,
                                       check=True).stdout)
    tampered = tmp_path / "tampered.tar"
    with tarfile.open(archive) as src, tarfile.open(tampered, "w") as dst:
        for member in src.getmembers():
            data: Any = src.extractfile(member) if member.isfile() else None
            if data is not None and b"hi\n" in (body := data.read()):
                data = io.BytesIO(body.replace(b"hi\n", b"ho\n"))
            elif data is not None:
                data = io.BytesIO(body)
            dst.addfile(member, data)
    with pytest.raises((InfraError, BadInputError), match="(?i)digest"):
        ImageStore(tmp_path / "store").load_file(tampered)


def test_an_image_not_in_the_store_says_how_to_get_it(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="evaluator images pull"):
        DaemonlessSandboxes(tmp_path).open("sha256:" + "0" * 64, SandboxLimits())


def test_the_images_command_loads_and_lists(tiny: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from evaluator.__main__ import main

    archive = tmp_path / "tiny.tar"
    archive.write_bytes(subprocess.run(["docker", "save", "evaluator-test/tiny:1"],
                                       capture_output=True, check=True).stdout)
    monkeypatch.setenv("EVAL_SANDBOX_BACKEND", "daemonless")
    monkeypatch.setenv("EVAL_DAEMONLESS_ROOT", str(tmp_path / "root"))
    assert main(["images", "load", str(archive)]) == 0
    assert main(["images", "list"]) == 0
    assert f"{tiny} evaluator-test/tiny:1" in capsys.readouterr().out
    assert main(["images", "pull", "evaluator-test/tiny:1"]) == 2  # not by digest


def test_a_store_another_layout_unpacked_is_refused(tmp_path: Path) -> None:
    # A user namespace's store: its owners are subordinate ids, its opaque folders user.*.
    (tmp_path / "layout.json").write_text('{"xattrs": "user", "uid_map": "0 1001 1 1 100000 '
                                          '65536", "gid_map": "0 1001 1 1 100000 65536"}')
    with pytest.raises(InfraError, match="a user namespace mapping uids '0 1001 1 1 100000 "
                       "65536'.*runs as the host's root.*EVAL_DAEMONLESS_ROOT"):
        ImageStore(tmp_path).get("evaluator-test/tiny:1")


def test_a_store_on_a_file_system_without_xattrs_is_refused_naming_store_and_xattr(
        tmp_path: Path) -> None:
    # ramfs keeps no xattrs at all, as tmpfs before Linux 6.6 keeps no user.* ones.
    root = tmp_path / "ramfs"
    root.mkdir()
    if subprocess.run(["mount", "-t", "ramfs", "ramfs", str(root)]).returncode != 0:
        unavailable("mounting a ramfs needs root")
    try:
        with pytest.raises(InfraError, match=r"ramfs/images is on a file system that cannot "
                                             r"hold the trusted\.overlay\.opaque xattr") as e:
            ImageStore(root / "images").get("sha256:" + "0" * 64)
        assert "EVAL_DAEMONLESS_ROOT on ext4, xfs or btrfs" in str(e.value)
    finally:
        subprocess.run(["umount", str(root)], check=True)
