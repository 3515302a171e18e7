"""The content-addressed store: blobs by blake3, one JSON record per target, a SQLite index.

The store, not doit's state DB, decides what is up to date: a target is done when its record
exists. Records are created once and never overwritten, so a failed or killed run cannot damage
what an earlier run finished.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluator.errors import BadInputError
from evaluator.hashing import canonical_json, hash_bytes
from evaluator.store._files import create_exclusive, replace_atomic
from evaluator.store._index import Index

DEFAULT_ROOT = ".eval"


def default_root() -> Path:
    """`$EVAL_STORE`, else `.eval` in the current directory."""
    return Path(os.environ.get("EVAL_STORE") or DEFAULT_ROOT)


class Store:
    """Blobs, records and the index under one root directory."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        self._tmp = self.root / "tmp"
        for sub in ("blobs", "records", "errors", "tmp"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.index = Index(self.root / "index.sqlite")
        self._records = os.path.join(os.fspath(self.root), "records")

    # blobs ---------------------------------------------------------------------------------
    def put_blob(self, data: bytes) -> str:
        """Store `data` once; return its blake3."""
        digest = hash_bytes(data)
        path = self._blob_path(digest)
        if not path.exists():
            create_exclusive(path, data, self._tmp)
        return digest

    def get_blob(self, digest: str) -> bytes:
        try:
            return self._blob_path(digest).read_bytes()
        except FileNotFoundError:
            raise BadInputError(f"blob {digest} is not in the store at {self.root}") from None

    def has_blob(self, digest: str) -> bool:
        return self._blob_path(digest).exists()

    def _blob_path(self, digest: str) -> Path:
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise BadInputError(f"not a blake3 hex digest: {digest!r}")
        return self.root / "blobs" / digest[:2] / digest[2:]

    # records -------------------------------------------------------------------------------
    def record_path(self, kind: str, key: str) -> Path:
        return Path(self._record_str(kind, key))

    def _record_str(self, kind: str, key: str) -> str:
        # Plain strings, not pathlib: a no-op run over 10,000 targets asks this 10,000 times.
        return f"{self._records}/{kind}/{key[:2]}/{key}.json"

    def has(self, kind: str, key: str) -> bool:
        """Is this target done? One stat, no hashing: the cost of a no-op run."""
        return os.path.exists(self._record_str(kind, key))

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        try:
            with open(self._record_str(kind, key), "rb") as f:
                data: dict[str, Any] = json.loads(f.read())
        except FileNotFoundError:
            return None
        return data

    def put(self, kind: str, key: str, record: dict[str, Any]) -> bool:
        """Create the record for (kind, key); False when one already exists (it is kept)."""
        body = {**record, "kind": kind, "key": key, "created": record.get("created", time.time())}
        landed = create_exclusive(self.record_path(kind, key), canonical_json(body), self._tmp)
        if landed:
            self.index.add(kind, key, body)
        return landed

    def iter_records(self, kind: str) -> Iterator[dict[str, Any]]:
        """Every record of a kind, read from the JSON files (the source of truth)."""
        base = self.root / "records" / kind
        for path in sorted(base.glob("*/*.json")):
            yield json.loads(path.read_bytes())

    def query(self, kind: str, **where: str) -> list[dict[str, Any]]:
        """Records of a kind filtered on indexed columns (task_set, task_id, subject, status)."""
        return list(self.index.query(kind, **where))

    def reindex(self) -> int:
        """Rebuild the index from the records, e.g. after a crash between record and index."""
        self.index.clear()
        rows = [
            (r["kind"], r["key"], r)
            for kind_dir in sorted((self.root / "records").iterdir())
            for r in self.iter_records(kind_dir.name)
        ]
        self.index.add_many(rows)
        return len(rows)

    # infra errors: kept beside, never in place of, a record --------------------------------
    def put_error(self, kind: str, key: str, error: dict[str, Any]) -> None:
        """Note an infrastructure failure of a target; it stays not-done and is retried."""
        path = self.root / "errors" / kind / key / f"{time.time():.6f}-{uuid.uuid4().hex[:8]}.json"
        body = {**error, "kind": kind, "key": key, "created": time.time()}
        create_exclusive(path, canonical_json(body), self._tmp)

    def errors(self, kind: str, key: str) -> list[dict[str, Any]]:
        base = self.root / "errors" / kind / key
        if not base.is_dir():
            return []
        return [json.loads(p.read_bytes()) for p in sorted(base.glob("*.json"))]

    def error_count(self, kind: str, key: str) -> int:
        base = self.root / "errors" / kind / key
        return len(os.listdir(base)) if base.is_dir() else 0

    # derived files (verdict summaries and the like) ------------------------------------------
    def write_derived(self, relpath: str, data: bytes) -> Path:
        path = self.root / relpath
        replace_atomic(path, data, self._tmp)
        return path
