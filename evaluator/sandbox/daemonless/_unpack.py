"""A layer's tar unpacked into a folder as overlayfs reads it, the way Docker's overlay2 lays
layers out: owners, modes and xattrs as the tar holds them (GNU tar, as root), and each OCI
whiteout turned into overlayfs' own (a `.wh.NAME` file into a 0:0 character device NAME, a
`.wh..wh..opq` marker into the folder's opaque xattr), so an overlay of layer folders shows what
the image shows. The tar's sha256 is taken as it streams, for the caller to check against the
diff_id the image's config names.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import IO

from evaluator.errors import BadInputError, InfraError
from evaluator.sandbox.daemonless._userns import overlay_xattrs

_CHUNK = 1 << 20


def extract(blob: Path, into: Path) -> str:
    """Feed the layer's tar to GNU tar as root keeps it (owners, modes, xattrs); its sha256."""
    with tempfile.TemporaryFile() as errors:
        tar = subprocess.Popen(
            ["tar", "-x", "-f", "-", "-C", str(into), "--numeric-owner", "--same-owner",
             "--same-permissions", "--xattrs", "--xattrs-include=*"],
            stdin=subprocess.PIPE, stderr=errors)
        assert tar.stdin is not None
        hasher = hashlib.sha256()
        try:
            with _open_layer(blob) as src:
                while chunk := src.read(_CHUNK):
                    hasher.update(chunk)
                    tar.stdin.write(chunk)
            tar.stdin.close()
        except BrokenPipeError:
            pass
        except (OSError, EOFError) as e:
            tar.kill()
            tar.wait()
            raise InfraError(f"reading layer {blob.name}: {e}") from e
        code = tar.wait()
        errors.seek(0)
        err = errors.read().decode(errors="replace")
    if code != 0:
        raise InfraError(f"unpacking layer {blob.name} failed (tar exit {code}): {err[-1500:]}")
    return "sha256:" + hasher.hexdigest()


def _open_layer(blob: Path) -> IO[bytes]:
    with blob.open("rb") as f:
        magic = f.read(4)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(blob, "rb")  # type: ignore[return-value]
    if magic == b"\x28\xb5\x2f\xfd":
        raise BadInputError(f"layer {blob.name} is zstd-compressed, which this store does not "
                            "read yet: copy the image with `skopeo copy --dest-compress-format "
                            "gzip` first")
    return blob.open("rb")


def convert_whiteouts(root: Path) -> None:
    """`.wh.NAME` -> a 0:0 character device NAME; `.wh..wh..opq` -> the folder is opaque
    (trusted.overlay.opaque as the host's root, user.overlay.opaque in a user namespace)."""
    opaque = overlay_xattrs()[0]
    for folder, dirs, files in os.walk(root):
        for name in [*files, *dirs]:
            if not name.startswith(".wh."):
                continue
            path = Path(folder) / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            if name == ".wh..wh..opq":
                os.setxattr(folder, opaque, b"y", follow_symlinks=False)
            elif not (Path(folder) / name[4:]).exists():
                os.mknod(Path(folder) / name[4:], 0o600 | stat.S_IFCHR, os.makedev(0, 0))


__all__ = ["convert_whiteouts", "extract"]
