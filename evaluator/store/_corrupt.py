"""Record files that do not read back: named, set aside, and their target run again.

The harness lands every record whole (`_files.create_exclusive`), so a record that is not a JSON
object of its own kind and key was damaged after it landed: a disk or copy that failed, a
restore cut short, a hand edit. Reading one used to raise a bare `JSONDecodeError` inside doit's
task loading, which took down `plan`, `eval` and `report` of the whole set without naming the
file. Now the reader names it and moves it under `corrupt/<kind>/<key>/` (kept, never deleted,
as `released/` keeps released errors), and the store answers as if the record were absent, so
its target runs again (or a remote's checked copy is fetched) and nothing else is touched.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

CORRUPT_DIR = "corrupt"


class Unreadable(Exception):
    """A record file that is not its record; `reason` says how, for the one line reported."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def parse_record(data: bytes, kind: str, key: str) -> dict[str, Any]:
    """The record held in `data`; Unreadable when it is not a JSON object of this kind and key
    (a record without the fields, as older or hand-made ones may be, is taken as it is)."""
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text (byte {exc.start} of {len(data)})") from None
    except ValueError as exc:
        raise Unreadable(f"not JSON ({exc}; {len(data)} bytes: truncated or overwritten?)") \
            from None
    if not isinstance(record, dict):
        raise Unreadable(f"a JSON {type(record).__name__}, not a record object")
    if record.get("kind", kind) != kind or record.get("key", key) != key:
        raise Unreadable(f"it holds {record.get('kind')}/{record.get('key')}, another record")
    return record


def set_aside(root: Path, path: str, kind: str, key: str, seen: os.stat_result) -> Path | None:
    """Move the unreadable record at `path` to `corrupt/<kind>/<key>/<time>.json`; the new
    place, or None when another reader moved it first or a new record replaced it meanwhile
    (the file is no longer the one `seen` describes: that one is left alone)."""
    dest = root / CORRUPT_DIR / kind / key / f"{time.time():.6f}-{os.getpid()}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        now = os.stat(path)
        if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            return None
        os.rename(path, dest)  # atomic: the record is there or set aside, never half
    except FileNotFoundError:
        return None
    return dest


def aside_line(kind: str, key: str, path: str, reason: str, dest: Path | None) -> str:
    """What the reader says, once per record set aside."""
    where = f"moved to {dest}" if dest is not None else "already moved by another process"
    return (f"store: record {kind}/{key} ({path}) is unreadable: {reason}; {where} (kept, "
            f"not deleted), and its target runs again; `evaluator store verify` checks the "
            f"whole store")
