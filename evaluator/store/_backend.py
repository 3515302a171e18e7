"""The seam between the store and a remote: the bytes a remote must move, and nothing more.

A backend only stores and returns bytes; the store checks everything it gets back (blob hashes,
record envelopes), so a remote is never trusted further than the checks in `_envelope`.
Failures are raised as `evaluator.errors.InfraError` (the remote package's errors subclass it).
"""

from __future__ import annotations

from typing import Protocol


class RemoteBackend(Protocol):
    url: str  # for messages, e.g. s3://bucket/prefix
    writable: bool  # False: the store never calls put_*; a backend may turn it off mid-run

    def record_keys(self, kind: str) -> set[str]:
        """Every key of `kind` the remote holds, in as few requests as it can (one LIST)."""
        ...

    def get_record(self, kind: str, key: str) -> bytes | None: ...

    def put_record(self, kind: str, key: str, data: bytes) -> bool:
        """Create only if absent (a conditional put); False when a record is already there."""
        ...

    def get_blob(self, digest: str) -> bytes | None: ...

    def put_blob(self, digest: str, data: bytes) -> None: ...

    # leases (see `_remote_lease`): each write is conditional, so two machines never both win
    def create_lease(self, kind: str, key: str, data: bytes) -> str | None:
        """Create if absent; the new ETag, or None when a lease is already there."""
        ...

    def read_lease(self, kind: str, key: str) -> tuple[bytes, str] | None: ...

    def replace_lease(self, kind: str, key: str, data: bytes, etag: str) -> str | None:
        """Overwrite only if its ETag is still `etag`; the new ETag, or None."""
        ...

    def delete_lease(self, kind: str, key: str, etag: str) -> bool: ...
