"""Image layers and configs made by the harness itself, so an image's id is a function of content.

Docker names a loaded image by the sha256 of its config and checks each layer against the
config's diff_ids (the sha256 of the uncompressed layer tar). Writing both ourselves, with
entries in sorted order, one fixed mtime, numeric owners and no clock anywhere, gives the same
id on every engine and machine; `docker build` and `docker import` stamp the time instead.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import docker
import docker.errors

from evaluator.errors import InfraError

# 2000-01-01T00:00:00Z: the one time every entry, history line and config carries.
EPOCH = 946684800
CREATED = "2000-01-01T00:00:00Z"


@dataclass
class Entry:
    """One tar member: `data` for a regular file, `target` for a symlink or hard link."""

    name: str  # relative, no leading slash; directories without a trailing slash
    kind: bytes  # tarfile.REGTYPE, DIRTYPE, SYMTYPE, LNKTYPE, CHRTYPE, BLKTYPE, FIFOTYPE
    mode: int
    uid: int = 0
    gid: int = 0
    data: bytes | Path | None = None
    target: str = ""
    devmajor: int = 0
    devminor: int = 0
    xattrs: dict[str, bytes] = field(default_factory=dict)


def tree_entries(root: Path, skip_below: Iterable[str] = ()) -> list[Entry]:
    """Every path under `root` (owners and modes as they are; hard links kept as links);
    directories named in `skip_below` are kept, empty."""
    skip = set(skip_below)
    out: list[Entry] = []
    seen: dict[tuple[int, int], str] = {}

    def visit(rel: str) -> None:
        path = root / rel if rel else root
        with os.scandir(path) as it:
            names = sorted(e.name for e in it)
        for name in names:
            child = f"{rel}/{name}" if rel else name
            st = os.lstat(root / child)
            entry = _entry(root / child, child, st, seen)
            out.append(entry)
            if entry.kind == tarfile.DIRTYPE and child not in skip:
                visit(child)

    visit("")
    return out


def _entry(path: Path, rel: str, st: os.stat_result, seen: dict[tuple[int, int], str]) -> Entry:
    entry = Entry(rel, tarfile.REGTYPE, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid,
                  xattrs=_xattrs(path))
    if stat.S_ISDIR(st.st_mode):
        entry.kind = tarfile.DIRTYPE
        return entry
    if stat.S_ISLNK(st.st_mode):
        entry.kind, entry.target = tarfile.SYMTYPE, os.readlink(path)
        return entry
    if stat.S_ISREG(st.st_mode):
        ident = (st.st_dev, st.st_ino)
        if st.st_nlink > 1 and ident in seen:
            entry.kind, entry.target = tarfile.LNKTYPE, seen[ident]
            return entry
        seen[ident] = rel
        entry.data = path
        return entry
    kinds = {stat.S_ISCHR: tarfile.CHRTYPE, stat.S_ISBLK: tarfile.BLKTYPE,
             stat.S_ISFIFO: tarfile.FIFOTYPE}
    for test, kind in kinds.items():
        if test(st.st_mode):
            entry.kind = kind
            entry.devmajor, entry.devminor = os.major(st.st_rdev), os.minor(st.st_rdev)
            return entry
    raise InfraError(f"{path} is a socket or other special file; it cannot go into an image")


def _xattrs(path: Path) -> dict[str, bytes]:
    # Only file capabilities matter in an image (e.g. ping's cap_net_raw); SELinux labels and
    # the like are the host's.
    try:
        value = os.getxattr(path, "security.capability", follow_symlinks=False)
    except OSError:
        return {}
    return {"security.capability": value}


def write_layer(entries: Iterable[Entry], out: IO[bytes]) -> str:
    """Write `entries` as an uncompressed tar, sorted path component by component (parents
    before children, a hard link after its target); return its sha256 (the diff_id)."""
    hasher = _Hashing(out)
    with tarfile.open(fileobj=hasher, mode="w",  # type: ignore[call-overload]
                      format=tarfile.PAX_FORMAT) as tar:
        for entry in sorted(entries, key=lambda e: e.name.split("/")):
            info = tarfile.TarInfo(entry.name)
            info.type = entry.kind
            info.mode = entry.mode
            info.uid, info.gid = entry.uid, entry.gid
            info.uname = info.gname = ""
            info.mtime = EPOCH
            info.linkname = entry.target
            info.devmajor, info.devminor = entry.devmajor, entry.devminor
            if entry.xattrs:
                info.pax_headers = {f"SCHILY.xattr.{k}": v.decode("latin-1")
                                    for k, v in sorted(entry.xattrs.items())}
            if entry.kind != tarfile.REGTYPE:
                tar.addfile(info)
            elif isinstance(entry.data, Path):
                info.size = entry.data.stat().st_size
                with entry.data.open("rb") as f:
                    tar.addfile(info, f)
            else:
                data = entry.data or b""
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return "sha256:" + hasher.digest.hexdigest()


class _Hashing:
    """A write-only file that hashes what passes through (tarfile needs write and tell)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.digest = hashlib.sha256()
        self.offset = 0

    def tell(self) -> int:
        return self.offset

    def write(self, b: Any) -> int:
        data = bytes(b)
        self.digest.update(data)
        self.out.write(data)
        self.offset += len(data)
        return len(data)


def image_config(diff_ids: list[str], config: dict[str, Any],
                 history: list[dict[str, Any]], architecture: str) -> bytes:
    """The image config as bytes: its sha256 is the image id."""
    body = {
        "architecture": architecture,
        "config": config,
        "created": CREATED,
        "history": history,
        "os": "linux",
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def load_image(client: docker.DockerClient, tag: str, config: bytes,
               layers: list[tuple[str, Path | None]], parent: str | None = None) -> str:
    """Load a docker-archive of `config` and `layers` (diff_id, tar file) and tag it `tag`.

    A layer given as None must already be on the engine (a base image's, `parent`'s): Docker
    skips layers it has, so a task image's archive carries only its own layer. Podman wants
    every layer in the archive: where it refuses one without them, they are read out of
    `parent` (`docker save`) and the archive is made again with them.
    """
    try:
        return _load(client, tag, config, layers)
    except InfraError as e:
        if parent is None or _MISSING_LAYERS not in str(e):
            raise
    with tempfile.TemporaryDirectory(prefix="evaluator-layers-") as tmp:
        held = _saved_layers(client, parent, Path(tmp))
        return _load(client, tag, config, [(d, p or held.get(d)) for d, p in layers])


# podman's answer to an archive that leaves out layers it holds already.
_MISSING_LAYERS = "layer tarfiles are missing"


def _saved_layers(client: docker.DockerClient, image: str, into: Path) -> dict[str, Path]:
    """The layer tars of `image` as the engine saves it, by diff_id (the sha256 of each)."""
    held: dict[str, Path] = {}
    try:
        chunks = client.images.get(image).save(named=False)
        with tarfile.open(fileobj=_Chunks(chunks), mode="r|") as tar:
            for member in tar:
                source = tar.extractfile(member) if member.isreg() else None
                if source is None or not member.name.endswith(".tar"):
                    continue
                path, digest = into / f"{len(held)}.tar", hashlib.sha256()
                with path.open("wb") as out:
                    while block := source.read(1 << 20):
                        digest.update(block)
                        out.write(block)
                held[f"sha256:{digest.hexdigest()}"] = path
    except (docker.errors.DockerException, tarfile.TarError, OSError) as e:
        raise InfraError(f"reading the layers of {image} out of the engine: {e}") from e
    return held


class _Chunks(io.RawIOBase):
    """An engine's stream of chunks as a readable file, for tarfile's stream mode."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks, self._left = iter(chunks), memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        # A view, not a slice: tarfile reads 10 KB at a time from the engine's 2 MB chunks, and
        # copying what is left of a chunk on each read is quadratic in its size.
        while not self._left:
            chunk = next(self._chunks, b"")
            if not chunk:
                return 0
            self._left = memoryview(chunk)
        n = min(len(b), len(self._left))
        b[:n], self._left = self._left[:n], self._left[n:]
        return n


def _load(client: docker.DockerClient, tag: str, config: bytes,
          layers: list[tuple[str, Path | None]]) -> str:
    image_id = "sha256:" + hashlib.sha256(config).hexdigest()
    names = [f"{d.split(':', 1)[1]}/layer.tar" for d, _ in layers]
    config_name = image_id.split(":", 1)[1] + ".json"
    manifest = [{"Config": config_name, "RepoTags": [tag], "Layers": names}]
    with tempfile.TemporaryFile() as archive:
        with tarfile.open(fileobj=archive, mode="w") as tar:
            _add(tar, "manifest.json", json.dumps(manifest).encode())
            _add(tar, config_name, config)
            for name, (_, path) in zip(names, layers, strict=True):
                if path is not None:
                    info = tarfile.TarInfo(name)
                    info.size, info.mtime = path.stat().st_size, EPOCH
                    with path.open("rb") as f:
                        tar.addfile(info, f)
        archive.seek(0)
        try:
            # The engine reports as it goes; the load is done (and tagged) once the stream ends.
            for chunk in client.api.load_image(archive, quiet=True):
                if isinstance(chunk, dict) and chunk.get("error"):
                    raise InfraError(f"docker load of {tag} failed: {chunk['error']}")
        except docker.errors.DockerException as e:
            raise InfraError(f"docker load of {tag} failed: {e}") from e
    try:
        loaded = str(client.images.get(tag).id)
    except docker.errors.DockerException as e:
        raise InfraError(f"docker load finished but {tag} cannot be found: {e}") from e
    if loaded != image_id:
        raise InfraError(f"docker load tagged {tag} as {loaded}, not the config's {image_id}")
    return image_id


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), EPOCH
    tar.addfile(info, io.BytesIO(data))
