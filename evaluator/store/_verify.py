"""What a record needs from the store, and `verify`: every record read back (through its
kind's type where that is loaded: `_record.shape_problem`), every blob it needs present (with
`hashes`, every blob's bytes matching its name), each problem named with what to do.

A record names its blobs in a few fields (`BLOB_FIELDS`: an attempt's patch, trajectory and
conversation; a grade's output and sources; a trajectory step's observation). A record whose
blob is gone still reads, so nothing but a check notices: the site showed such an attempt as
"0 steps" with an empty patch. `needed_blobs` is that check, used here and by the viewer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from evaluator.hashing import hash_file
from evaluator.store._corrupt import CORRUPT_DIR, Unreadable, parse_record, set_aside
from evaluator.store._record import shape_problem

BLOB_FIELDS = ("patch", "trajectory", "conversation", "output", "sources")
_FOLLOWED = ("trajectory",)  # JSON blobs that name more blobs (a step's observation)
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class BlobSource(Protocol):
    def has_blob(self, digest: str) -> bool: ...
    def local_blob(self, digest: str) -> bytes | None: ...


def needed_blobs(record: dict[str, Any],
                 local_blob: Callable[[str], bytes | None]) -> Iterator[tuple[str, str]]:
    """(what, digest) for every blob `record` needs, a trajectory's observations included (read
    through `local_blob`; a trajectory that is itself missing names only itself)."""
    for field in BLOB_FIELDS:
        digest = record.get(field)
        if isinstance(digest, str) and _DIGEST.match(digest):
            yield f"its {field}", digest
            if field in _FOLLOWED:
                yield from _observations(local_blob(digest))


def _observations(data: bytes | None) -> Iterator[tuple[str, str]]:
    try:
        steps = json.loads(data)["steps"] if data else []
    except (ValueError, KeyError, TypeError):
        return
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        ref = step.get("observation") if isinstance(step, dict) else None
        if isinstance(ref, str) and _DIGEST.match(ref):
            yield f"the observation of its step {i}", ref


def missing_blobs(record: dict[str, Any], store: BlobSource) -> list[tuple[str, str]]:
    """(what, digest) of each needed blob the store (or its remote) does not hold."""
    return [(what, d) for what, d in needed_blobs(record, store.local_blob)
            if not store.has_blob(d)]


def missing_line(kind: str, key: str, what: str, digest: str, root: Path) -> str:
    return (f"{kind}/{key} needs blob {digest} ({what}), which is not in the store at {root}: "
            f"restore {root / 'blobs' / digest[:2] / digest[2:]} from a backup (or set "
            f"EVAL_REMOTE to a remote that holds it), or run `evaluator store verify "
            f"--set-aside` to set the record aside so that its target runs again")


@dataclass
class Verified:
    """What `verify` found; `problems` holds one line per problem, `set_aside` how many
    records and blobs were moved under `corrupt/`."""

    records: int = 0
    blobs: int = 0
    problems: list[str] | None = None
    set_aside: int = 0

    def __post_init__(self) -> None:
        self.problems = self.problems or []


class _Store(BlobSource, Protocol):
    root: Path

    def forget(self, kind: str, key: str) -> None: ...
    def indexed(self, kind: str) -> set[str]: ...


def verify(store: _Store, *, aside: bool = False, hashes: bool = False,
           say: Callable[[str], None] = print) -> Verified:
    """Check the store; with `aside`, move what is wrong under `corrupt/` (kept) so that its
    target runs again; with `hashes`, also re-hash every blob."""
    out = Verified()
    assert out.problems is not None
    root = store.root

    def problem(line: str) -> None:
        out.problems.append(line)  # type: ignore[union-attr]
        say(line)

    if hashes:
        for path in sorted((root / "blobs").glob("*/*")):
            out.blobs += 1
            digest = path.parent.name + path.name
            if hash_file(path) != digest:
                moved = _move_blob(root, path, digest) if aside else None
                out.set_aside += moved is not None
                problem(f"blob {digest} at {path}: its bytes do not match its blake3 (damaged); "
                        + (f"moved to {moved}" if moved else "`evaluator store verify "
                           "--hashes --set-aside` moves it aside, and the records that need it "
                           "are named here"))
    for kind_dir in sorted(p for p in (root / "records").iterdir() if p.is_dir()):
        on_disk = set()
        for path in sorted(kind_dir.glob("*/*.json")):
            out.records += 1
            kind, key = kind_dir.name, path.stem
            on_disk.add(key)
            try:
                seen = os.stat(path)
                record = parse_record(path.read_bytes(), kind, key)
                # JSON of its kind and key, but a field of the wrong type or missing: `read`
                # would set it aside when its target asks for it, so it is a problem now.
                if wrong := shape_problem(kind, key, record):
                    raise Unreadable(wrong)
            except Unreadable as bad:
                moved = set_aside(root, str(path), kind, key, seen) if aside else None
                if moved is not None:
                    store.forget(kind, key)
                    out.set_aside += 1
                problem(f"{kind}/{key} at {path} is unreadable: {bad.reason}; "
                        + (f"moved to {moved}, and its target runs again" if moved else
                           "reading it sets it aside (or `evaluator store verify --set-aside`)"))
                continue
            except FileNotFoundError:
                continue  # set aside by another process meanwhile
            gone = missing_blobs(record, store)
            for what, digest in gone:
                problem(missing_line(kind, key, what, digest, root))
            if gone and aside and (moved := set_aside(root, str(path), kind, key, seen)):
                store.forget(kind, key)
                out.set_aside += 1
                say(f"{kind}/{key}: moved to {moved}; its target runs again")
        indexed = store.indexed(kind_dir.name)
        unindexed, stale = len(on_disk - indexed), len(indexed - on_disk)
        if unindexed or stale:
            problem(f"the index of {root} lacks {unindexed} {kind_dir.name} record(s) on disk "
                    f"and names {stale} that are not (a run stopped between record and index, "
                    "or a full disk): `evaluator store verify --reindex` rebuilds it")
    return out


def _move_blob(root: Path, path: Path, digest: str) -> Path:
    dest = root / CORRUPT_DIR / "blobs" / digest
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.rename(path, dest)
    return dest
