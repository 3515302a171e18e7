"""The folders of an image's layers, as overlayfs reads them (Docker's overlay2, podman's overlay
and the daemonless store lay them out alike): which layers hold a folder, which folders are
opaque, and how much a folder holds on disk.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

_OPAQUE = ("trusted.overlay.opaque", "user.overlay.opaque")


def used_bytes(path: str) -> int:
    """What the sandbox wrote to its workdir: the upper folder's allocated blocks."""
    total, stack = 0, [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
        except OSError:
            continue  # removed while we walked
    return total


def holding(stack: Iterable[Path], folder: str) -> list[Path]:
    """The layer folders of `stack` (topmost first) whose `folder` the merged view shows, topmost
    first: empty when it is absent, or reached through a symlink or a file."""
    parts = PurePosixPath(folder).parts[1:]
    found: list[Path] = []
    for diff in stack:
        holds, hides = _look(diff, parts)
        if holds:
            found.append(diff)
        # holds None: a file or symlink there, hidden only if a layer above has the folder
        if hides or holds is None:
            break
    return found


def _look(diff: Path, parts: tuple[str, ...]) -> tuple[bool | None, bool]:
    """(does this layer hold the workdir folder, does it hide the layers below at that path);
    holds is None when a component is a symlink or a file: the path leaves the folder tree."""
    here = diff
    for i, part in enumerate(parts):
        here = here / part
        try:
            st = here.lstat()
        except FileNotFoundError:
            return False, False
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:  # a whiteout: deleted in this layer
            return False, True
        if not stat.S_ISDIR(st.st_mode):
            return None, True
        if opaque(here):
            return i == len(parts) - 1, True
    return True, False


def opaque(path: Path) -> bool:
    """Whether folder `path` of a layer is opaque, in either layout's xattr."""
    for name in _OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False
