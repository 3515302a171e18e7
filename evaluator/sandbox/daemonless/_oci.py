"""The daemonless backend's images: fetched by digest, each layer unpacked once, kept by digest.

No engine holds the images, so this folder does (`settings.daemonless_root`/images):

- `blobs/sha256/<hex>`: configs, manifests and layer blobs as they came (content-addressed);
- `layers/<hex>/`: each layer unpacked once, named by its diff_id (the sha256 of its tar), with
  its whiteouts turned into overlayfs' (a 0:0 character device, an opaque folder's xattr), so a
  sandbox's root is an overlay of the layer folders, shared by every image that has them, the
  way Docker's overlay2 lays them out;
- `images/<hex>.json`: an image by its id (the sha256 of its config, what Docker calls the image
  id and what the lock pins for the images the harness builds): its manifest and layers;
- `names/<hash>.json`: a reference (`name@sha256:<manifest digest>`, `name:tag`, a seal's tag)
  and the image id it names.

Images come in through `skopeo`: `pull` copies `docker://name@sha256:...` from its registry by
digest (skopeo checks the digest), `load` takes a docker-archive (what `docker save` writes) or
an OCI archive, which is how a host without a registry gets the images the harness builds on
Docker (`docker save IMAGE | evaluator images load -`, or the Ray nodes' own transfers). Every
blob is checked against its digest, and every layer's tar against its diff_id as it unpacks, so
an image id here names exactly the content it names on Docker: same pins, same keys.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.errors import BadInputError, InfraError
from evaluator.filelock import exclusive
from evaluator.sandbox.daemonless import _userns
from evaluator.sandbox.daemonless._skopeo import archive_contents, skopeo
from evaluator.sandbox.daemonless._unpack import convert_whiteouts, extract

_OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
_OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
_OCI_LAYER = "application/vnd.oci.image.layer.v1.tar"
_DIR_VERSION = "Directory Transport Version: 1.1\n"
_CHUNK = 1 << 20
_loopback = ("localhost", "127.", "[::1]")


@dataclass(frozen=True)
class StoredImage:
    """One image of the store: its id, config and unpacked layers (bottom first)."""

    id: str  # sha256:<hex of the config>
    config: dict[str, Any]
    layers: tuple[Path, ...]
    size: int  # bytes of its layer blobs

    @property
    def env(self) -> list[str]:
        return list((self.config.get("config") or {}).get("Env") or [])


class ImageStore:
    """Images kept in a folder (see the module's doc); also the daemonless backend's `Images`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._checked = False

    # --- looking up -------------------------------------------------------------------------
    def get(self, ref: str) -> StoredImage | None:
        """The image `ref` names (an id `sha256:<hex>` or a reference kept in `names/`)."""
        image_id = self._id_of(ref)
        if image_id is None:
            return None
        try:
            meta = json.loads((self._dir("images") / f"{_hex(image_id)}.json").read_text())
            config = json.loads(self._blob(image_id).read_bytes())
        except (OSError, ValueError):
            return None
        layers = tuple(self._dir("layers") / _hex(d) for d in config["rootfs"]["diff_ids"])
        if not all(layer.is_dir() for layer in layers):
            return None  # a layer was removed by hand: unusable until loaded again
        return StoredImage(image_id, config, layers, sum(int(la["size"]) for la in meta["layers"]))

    def has(self, image: str) -> bool:
        return self.get(image) is not None

    def require(self, image: str) -> StoredImage:
        found = self.get(image)
        if found is None:
            raise BadInputError(
                f"image {image} is not in the daemonless image store {self.root}: sandbox images "
                "are never pulled when a sandbox opens; get it by digest from its registry "
                "(`evaluator images pull NAME@sha256:...`) or load what `docker save` wrote on a "
                "machine that has it (`evaluator images load FILE.tar`)")
        return found

    def tag(self, name: str, image_id: str) -> None:
        """Let `name` name the stored image `image_id`."""
        record = json.dumps({"ref": name, "id": image_id}).encode()
        _replace(self._dir("names") / f"{hashlib.sha256(name.encode()).hexdigest()}.json", record)

    # --- getting images in ------------------------------------------------------------------
    def pull(self, image: str) -> None:
        """Copy `name@sha256:...` from its registry, by digest (skopeo checks it)."""
        name, at, digest = image.partition("@")
        if not at or not digest.startswith("sha256:"):
            raise BadInputError(f"{image!r} is not pinned by digest (name@sha256:...): sandbox "
                                "images are pulled by digest only")
        tls = ["--src-tls-verify=false"] if name.startswith(_loopback) else []
        with self._scratch() as tmp:
            skopeo(["copy", *tls, f"docker://{image}", f"dir:{tmp}"], f"pulling {image}")
            self._ingest(tmp, [image])

    def load(self, archive: bytes) -> None:
        """Take in a docker-archive (`docker save`) or an OCI archive."""
        with self._scratch() as tmp:
            path = tmp / "archive.tar"
            path.write_bytes(archive)
            self.load_file(path)

    def copy_from(self, source: str, names: list[str] | None = None) -> str:
        """Take in the image at skopeo's `source` (`docker-daemon:sha256:...`, `oci:DIR:REF`,
        ...), under `names`; its id."""
        with self._scratch() as tmp:
            skopeo(["copy", source, f"dir:{tmp}"], f"copying {source}")
            return self._ingest(tmp, names or [])

    def load_file(self, path: Path) -> list[str]:
        """Take in every image of the archive at `path`; the ids it held."""
        kind, count, names = archive_contents(path)
        loaded = []
        for index in range(count):
            source = f"{kind}:{path}" + (f":@{index}" if kind == "docker-archive" else "")
            with self._scratch() as tmp:
                skopeo(["copy", source, f"dir:{tmp}"], f"reading {path}")
                loaded.append(self._ingest(tmp, names[index] if index < len(names) else []))
        return loaded

    def export(self, image: str) -> bytes:
        """`image` as a docker-archive, for another node or engine (`docker load` takes it)."""
        found = self.require(image)
        meta = json.loads((self._dir("images") / f"{_hex(found.id)}.json").read_text())
        with self._scratch() as tmp:
            layout = tmp / "layout"
            layout.mkdir()
            manifest = self._blob(meta["manifest"])
            shutil.copyfile(manifest, layout / "manifest.json")
            (layout / "version").write_text(_DIR_VERSION)
            for digest in [found.id, *(la["digest"] for la in meta["layers"])]:
                os.link(self._blob(digest), layout / _hex(digest))
            names = [n for n in meta.get("names", []) if "@" not in n and ":" in n]
            out = tmp / "out.tar"
            target = f"docker-archive:{out}" + (f":{names[0]}" if names else "")
            skopeo(["copy", f"dir:{layout}", target], f"exporting {image}")
            return out.read_bytes()

    def add(self, config: bytes, layers: list[tuple[str, Path | None]], names: list[str]) -> str:
        """Store an image made here (a seal): its config, and the uncompressed tar of each layer
        this store lacks (`(diff_id, None)` for one it has); its id."""
        image_id = self._put_blob(config)
        entries = []
        for diff_id, tar in layers:
            if tar is not None:
                self._put_file(tar, diff_id)
                entry = {"mediaType": _OCI_LAYER, "digest": diff_id,
                         "size": self._blob(diff_id).stat().st_size}
                self._unpack(diff_id, self._blob(diff_id), entry)
            else:
                entry = self._layer_blob(diff_id)
            entries.append(entry)
        manifest = json.dumps({
            "schemaVersion": 2, "mediaType": _OCI_MANIFEST,
            "config": {"mediaType": _OCI_CONFIG, "digest": image_id, "size": len(config)},
            "layers": entries}, sort_keys=True).encode()
        self._record(image_id, self._put_blob(manifest), entries, names)
        return image_id

    def blob_of(self, diff_id: str) -> Path | None:
        """The stored tar of layer `diff_id` when it is kept uncompressed (as `add` keeps it)."""
        path = self._blob(diff_id)
        return path if path.is_file() else None

    def _ingest(self, layout: Path, names: list[str]) -> str:
        """Take in one image that skopeo wrote as a `dir:` layout; its id."""
        raw = (layout / "manifest.json").read_bytes()
        manifest = json.loads(raw)
        if "config" not in manifest or "layers" not in manifest:
            raise BadInputError(f"{names or layout}: not an image manifest (a list of platforms? "
                                "pin the platform's own digest)")
        image_id = self._put_file(layout / _hex(manifest["config"]["digest"]),
                                  manifest["config"]["digest"])
        config = json.loads(self._blob(image_id).read_bytes())
        diff_ids = config["rootfs"]["diff_ids"]
        if len(diff_ids) != len(manifest["layers"]):
            raise BadInputError(f"{names or layout}: the config has {len(diff_ids)} layers, the "
                                f"manifest {len(manifest['layers'])}")
        entries = []
        for diff_id, layer in zip(diff_ids, manifest["layers"], strict=True):
            blob = self._put_file(layout / _hex(layer["digest"]), layer["digest"])
            entry = {"mediaType": layer.get("mediaType", _OCI_LAYER), "digest": blob,
                     "size": int(layer.get("size") or self._blob(blob).stat().st_size)}
            self._unpack(diff_id, self._blob(blob), entry)
            entries.append(entry)
        repo = {n.partition("@")[0] for n in names if "@" in n}
        digest = "sha256:" + hashlib.sha256(raw).hexdigest()
        self._record(image_id, self._put_blob(raw), entries,
                     [*names, *(f"{r}@{digest}" for r in repo)])
        return image_id

    def _record(self, image_id: str, manifest: str, layers: list[dict[str, Any]],
                names: list[str]) -> None:
        path = self._dir("images") / f"{_hex(image_id)}.json"
        try:
            known = set(json.loads(path.read_text()).get("names", []))
        except (OSError, ValueError):
            known = set()
        record = {"id": image_id, "manifest": manifest, "layers": layers,
                  "names": sorted(known | set(names))}
        _replace(path, json.dumps(record, indent=1, sort_keys=True).encode())
        for name in names:
            self.tag(name, image_id)

    # --- blobs and layers -------------------------------------------------------------------
    def _put_blob(self, data: bytes) -> str:
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        path = self._blob(digest)
        if not path.exists():
            _replace(path, data)
        return digest

    def _put_file(self, source: Path, digest: str) -> str:
        """Move (or copy) `source` in as the blob `digest`, after checking it is that."""
        path = self._blob(digest)
        if path.exists():
            return digest
        got = _sha256_file(source)
        if got != digest:
            raise InfraError(f"blob {source.name} has digest {got}, not the {digest} its manifest "
                             "names: the image is corrupt or was tampered with; fetch it again")
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)
        os.replace(tmp, path)
        return digest

    def _layer_blob(self, diff_id: str) -> dict[str, Any]:
        """The manifest entry of the blob layer `diff_id` was unpacked from."""
        path = self._dir("layers") / f".{_hex(diff_id)}.blob.json"
        try:
            return dict(json.loads(path.read_text()))
        except (OSError, ValueError) as e:
            raise InfraError(f"layer {diff_id} is not in the image store {self.root}") from e

    def _unpack(self, diff_id: str, blob: Path, entry: dict[str, Any]) -> None:
        """Unpack layer `diff_id` from `blob` (gzip or plain tar) once, whiteouts converted;
        `entry` (its blob's manifest entry) is kept beside it, for the images made on it."""
        target = self._dir("layers") / _hex(diff_id)
        note = target.with_name(f".{target.name}.blob.json")
        if not note.exists():
            _replace(note, json.dumps(entry, sort_keys=True).encode())
        if target.is_dir():
            return
        if os.geteuid() != 0:
            raise InfraError(f"unpacking layer {diff_id[:19]} into {self.root} needs root, or "
                             "the harness's user namespace: its files keep their owners (GNU "
                             "tar --same-owner, CAP_CHOWN) and its opaque folders get overlayfs' "
                             "opaque xattr; `evaluator images` enters that namespace by itself "
                             f"(anything else: `evaluator userns -- COMMAND`). {_userns.refusal()}")
        with exclusive(target.with_name(f".{target.name}.lock")):
            if target.is_dir():
                return
            tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
            tmp.mkdir()
            try:
                got = extract(blob, tmp)
                if got != diff_id:
                    raise InfraError(f"layer {blob.name} unpacks to a tar of digest {got}, not "
                                     f"the diff_id {diff_id} its config names; fetch it again")
                convert_whiteouts(tmp)
                os.rename(tmp, target)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise

    def _check_layout(self) -> None:
        """Refuse a store another layout made: its layers' owners and opaque xattrs are the
        host's root's (trusted.*) or those of one user namespace's map (user.*), and mean
        nothing under another (docs/daemonless.md, "Without root")."""
        mine = _layout()
        marker = self.root / "layout.json"
        try:
            found = json.loads(marker.read_text())
        except FileNotFoundError:
            self.root.mkdir(parents=True, exist_ok=True)
            if (self.root / "layers").is_dir() and any((self.root / "layers").iterdir()):
                found = _layout(root=True)  # unpacked before stores said who: by root
            else:
                _replace(marker, json.dumps(mine, sort_keys=True).encode())
                found = mine
        except (OSError, ValueError) as e:
            raise InfraError(f"the image store's {marker} cannot be read ({e}): remove the store "
                             "and load its images again") from e
        if found != mine:
            raise InfraError(
                f"the image store {self.root} was unpacked by {_says(found)}, and this harness "
                f"runs as {_says(mine)}: its files' owners would mean other users here. Give "
                "this harness a store of its own (EVAL_DAEMONLESS_ROOT) and load its images "
                "there")
        _holds_opaque_xattr(self.root)
        self._checked = True

    def _blob(self, digest: str) -> Path:
        return self._dir("blobs") / "sha256" / _hex(digest)

    def _dir(self, name: str) -> Path:
        if not self._checked:
            self._check_layout()
        path = self.root / name
        if name == "blobs":
            (path / "sha256").mkdir(parents=True, exist_ok=True)
        else:
            path.mkdir(parents=True, exist_ok=True)
        return path

    def _id_of(self, ref: str) -> str | None:
        if ref.startswith("sha256:") and len(ref) == 71:
            return ref
        candidates = [ref] if (":" in ref.rpartition("/")[2] or "@" in ref) else [ref, f"{ref}:latest"]
        for name in candidates:
            path = self._dir("names") / f"{hashlib.sha256(name.encode()).hexdigest()}.json"
            with contextlib.suppress(OSError, ValueError, KeyError):
                return str(json.loads(path.read_text())["id"])
        return None

    @contextlib.contextmanager
    def _scratch(self) -> Iterator[Path]:
        tmp = self._dir("tmp")
        with tempfile.TemporaryDirectory(dir=tmp) as d:
            yield Path(d)


def _holds_opaque_xattr(root: Path) -> None:
    """Refuse a store whose file system cannot mark an opaque folder as this layout does (the
    sandboxes' overlays need the same of their upper folders, beside it): without root that is
    a user.* xattr, which tmpfs keeps only since Linux 6.6."""
    name = _userns.overlay_xattrs()[0]
    probe = Path(tempfile.mkdtemp(prefix=".xattr-probe-", dir=root))
    try:
        os.setxattr(probe, name, b"y", follow_symlinks=False)
    except OSError as e:
        if e.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return  # not the file system's doing (trusted.* without root): unpacking says why
        raise InfraError(
            f"the image store {root} is on a file system that cannot hold the {name} xattr "
            f"overlayfs reads ({e.strerror}): put EVAL_DAEMONLESS_ROOT on ext4, xfs or btrfs "
            "(tmpfs keeps user.* xattrs only since Linux 6.6)") from e
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def _layout(root: bool = False) -> dict[str, Any]:
    """Who unpacks this store: the host's root, or a user namespace with this id map."""
    if root or _userns.initial():
        return {"xattrs": "trusted", "uid_map": "0 0 4294967295", "gid_map": "0 0 4294967295"}
    maps = {k: " ".join(Path(f"/proc/self/{k}").read_text().split()) for k in ("uid_map",
                                                                          "gid_map")}
    return {"xattrs": "user", **maps}


def _says(layout: dict[str, Any]) -> str:
    if layout.get("xattrs") == "trusted":
        return "the host's root"
    return f"a user namespace mapping uids {layout.get('uid_map')!r}"


def _sha256_file(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            hasher.update(chunk)
    return "sha256:" + hasher.hexdigest()


def _hex(digest: str) -> str:
    algo, _, value = digest.partition(":")
    if algo != "sha256" or len(value) != 64 or not all(c in "0123456789abcdef" for c in value):
        raise BadInputError(f"{digest!r} is not a sha256 digest")
    return value


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    tmp.write_bytes(data)
    os.replace(tmp, path)
