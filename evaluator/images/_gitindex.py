"""A git index without the stat data of the machine that wrote it.

An index records each file's ctime, mtime, device, inode and owner as seen where it was
written; those differ on every machine, so they are zeroed (and the checksum recomputed). Git
then compares the files by content once, finds them clean and refreshes the index itself.
"""

from __future__ import annotations

import hashlib
import struct

from evaluator.errors import InfraError

_FIXED = 62  # bytes of an entry before its path, in index versions 2 and 3
_EXTENDED = 0x4000


def without_stat(index: bytes) -> bytes:
    """`index` with every entry's ctime, mtime, dev, ino, uid and gid set to zero."""
    if index[:4] != b"DIRC" or len(index) < 32:
        raise InfraError("git wrote an index this harness cannot read (no DIRC header)")
    version, count = struct.unpack(">II", index[4:12])
    if version not in (2, 3):
        raise InfraError(f"git wrote an index of version {version}; versions 2 and 3 are read")
    out = bytearray(index[:-20])
    pos = 12
    for _ in range(count):
        out[pos:pos + 24] = bytes(24)  # ctime, mtime (seconds, nanoseconds), dev, ino
        out[pos + 28:pos + 36] = bytes(8)  # uid, gid (mode and size are kept)
        (flags,) = struct.unpack(">H", out[pos + 60:pos + 62])
        start = pos + _FIXED + (2 if flags & _EXTENDED else 0)
        end = out.index(0, start)
        # Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
        length = end - pos
        pos += (length + 8) & ~7
    return bytes(out) + hashlib.sha1(out).digest()
