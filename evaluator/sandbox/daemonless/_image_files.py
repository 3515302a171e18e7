"""An image's files, read on the host through its layer folders (topmost first), and the folders
a daemonless sandbox gets from them: where its workdir is mounted (symlinks followed inside the
image), which layers hold it, its writable folders and the mount points its root lacks.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from evaluator.errors import BadInputError
from evaluator.sandbox._layers import holding
from evaluator.sandbox._layers import opaque as is_opaque
from evaluator.sandbox.daemonless import _bwrap as bw
from evaluator.sandbox.daemonless._oci import StoredImage

_HOSTS = (b"127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
          b"fe00::0\tip6-localnet\nff00::0\tip6-mcastprefix\nff02::1\tip6-allnodes\n"
          b"ff02::2\tip6-allrouters\n")


def find(stack: list[Path], path: str) -> Path | None:
    """The file or folder `path` of the merged layers (topmost first), or None: absent,
    whited out, or behind a symlink."""
    parts = PurePosixPath(path).parts[1:]
    if not parts:
        return stack[0] if stack else None
    for diff in stack:
        here, opaque = diff, False
        for i, part in enumerate(parts):
            here = here / part
            try:
                st = here.lstat()
            except OSError:
                break
            if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                return None
            if i == len(parts) - 1:
                return here
            if not stat.S_ISDIR(st.st_mode):
                return None
            opaque = opaque or is_opaque(here)
        if opaque:
            return None
    return None


def text(stack: list[Path], path: str) -> str:
    found = find(stack, path)
    if found is None or not found.is_file() or found.is_symlink():
        return ""
    return found.read_text(errors="replace")


def resolve(stack: list[Path], path: str, image: str) -> str:
    """`path` with every symlink the image has on the way followed, inside the image (never
    the host's): where a mount at `path` lands."""
    done, todo = PurePosixPath("/"), list(PurePosixPath(path).parts[1:])
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in (".", ""):
            continue
        here = done.parent if part == ".." else done / part
        found = find(stack, str(here))
        if found is None or not found.is_symlink():
            done = here
            continue
        hops += 1
        if hops > 40:
            raise BadInputError(f"{path} of image {image[:19]}: too many levels of symlinks")
        target = PurePosixPath(os.readlink(found))
        todo = [*target.parts[1:]] + todo if target.is_absolute() else [*target.parts] + todo
        if target.is_absolute():
            done = PurePosixPath("/")
    if done == PurePosixPath("/"):
        raise BadInputError(f"workdir {path} of image {image[:19]} is the root folder")
    return str(done)


def workdir_layers(stack: list[Path], workdir: str, image: str) -> list[Path]:
    found = find(stack, workdir)
    if found is not None and not found.is_dir():
        raise BadInputError(f"workdir {workdir} of image {image[:19]} is a file, not a folder")
    if any(c in workdir for c in ":,\\"):
        raise BadInputError(f"workdir {workdir!r} holds a character overlay options cannot carry")
    return holding(stack, workdir) if found is not None else []


def folders(scratch: Path, stack: list[Path], workdir_layers: list[Path], uid: int, gid: int,
             mountpoints: list[str]) -> None:
    """The sandbox's writable folders (`mountpoints[0]` is the workdir), and `mp`: the top
    layer of its root, with /etc/hosts and whatever mount point the image lacks (owned and moded
    as the image's own parents)."""
    for name in ("root", "wd", "work"):
        (scratch / name).mkdir()
    bw.ensure([scratch / "tmp"], uid=0, gid=0, mode=0o1777)
    bw.ensure([scratch / "home", scratch / "plain"], uid=uid, gid=gid, mode=0o755)
    upper = scratch / "upper"
    upper.mkdir()
    if workdir_layers:
        # The merged folder takes the upper folder's owner and mode: the image's, not root's.
        top = (workdir_layers[0] / mountpoints[0].strip("/")).lstat()
        os.chown(upper, top.st_uid, top.st_gid)
        os.chmod(upper, stat.S_IMODE(top.st_mode))
    mp = scratch / "mp"
    mp.mkdir()
    for path in ["/etc", *mountpoints]:
        _mirror(mp, stack, path)
    (mp / "etc" / "hosts").write_bytes(_HOSTS)
    (mp / "etc" / "hostname").write_bytes(b"sandbox\n")


def _mirror(mp: Path, stack: list[Path], path: str) -> None:
    """Make folder `path` in `mp` unless the image has it, parents as the image has them."""
    if path == "/":
        return
    found = find(stack, path)
    if found is not None and found.is_dir() and not found.is_symlink() and path != "/etc":
        return
    parts = PurePosixPath(path).parts[1:]
    for i in range(1, len(parts) + 1):
        rel = "/" + "/".join(parts[:i])
        here = mp / rel.lstrip("/")
        if here.exists():
            continue
        image_dir = find(stack, rel)
        here.mkdir()
        if image_dir is not None and image_dir.is_dir() and not image_dir.is_symlink():
            st = image_dir.lstat()
            os.chown(here, st.st_uid, st.st_gid)
            os.chmod(here, stat.S_IMODE(st.st_mode))
        else:
            os.chmod(here, 0o755)


def env_of(stored: StoredImage) -> tuple[tuple[str, str], ...]:
    pairs = [tuple(e.split("=", 1)) for e in stored.env if "=" in e]
    if not any(k == "PATH" for k, _ in pairs):
        pairs.insert(0, ("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"))
    return tuple((k, v) for k, v in pairs)


