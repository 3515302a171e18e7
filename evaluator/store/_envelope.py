"""Record envelopes on the remote, and the blobs each record reaches.

A record travels as {"format", "kind", "key", "record_blake3", "blobs", "record"}: `blobs` is
every blob the record reaches (also through JSON blobs, e.g. a trajectory's observations), so a
reader can check them all before it takes the record. What cannot be checked is whether the
record tells the truth: its key hashes its inputs, not its outcome (see the README's remote
store section on poisoning).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from evaluator.hashing import canonical_json, hash_bytes

FORMAT = "evaluator-remote-record/1"
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class RejectedRecord(Exception):
    """A remote record that fails a check; `reason` says which, for the report line."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def blob_closure(record: dict[str, Any], local_blob: Callable[[str], bytes | None]) -> list[str]:
    """Sorted digests of every local blob the record reaches, following JSON blobs."""
    seen: set[str] = set()
    todo = list(_digests(record))
    while todo:
        digest = todo.pop()
        if digest in seen:
            continue
        data = local_blob(digest)
        if data is None:
            continue  # a 64-hex string that names no blob (a record key, say)
        seen.add(digest)
        if data[:1] in (b"{", b"["):
            try:
                todo.extend(_digests(json.loads(data)))
            except ValueError:
                pass  # bytes that only look like JSON are a plain blob
    return sorted(seen)


def wrap(kind: str, key: str, body: bytes, blobs: list[str]) -> bytes:
    record = json.loads(body)
    return canonical_json({"format": FORMAT, "kind": kind, "key": key,
                           "record_blake3": hash_bytes(body), "blobs": blobs, "record": record})


def unwrap(kind: str, key: str, data: bytes) -> tuple[bytes, dict[str, Any], list[str]]:
    """(record bytes, record, blob digests) of an envelope; RejectedRecord when a check fails.

    The record bytes are rebuilt canonically and must hash to what the writer hashed, so the
    local copy is byte for byte the writer's.
    """
    try:
        env = json.loads(data)
    except ValueError:
        raise RejectedRecord("the envelope is not JSON (truncated or corrupted)") from None
    if not isinstance(env, dict) or env.get("format") != FORMAT:
        raise RejectedRecord(f"the envelope is not in format {FORMAT}")
    record, blobs = env.get("record"), env.get("blobs")
    if not isinstance(record, dict) or not isinstance(blobs, list):
        raise RejectedRecord("the envelope lacks its record or its blob list")
    if not all(isinstance(b, str) and _DIGEST.match(b) for b in blobs):
        raise RejectedRecord("the blob list holds something that is not a blake3 digest")
    if (env.get("kind"), env.get("key"), record.get("kind"), record.get("key")) != (kind, key) * 2:
        raise RejectedRecord("it names another kind or key than the one it is stored under")
    body = canonical_json(record)
    if hash_bytes(body) != env.get("record_blake3"):
        raise RejectedRecord("the record does not match its blake3")
    return body, record, blobs


def _digests(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        if len(value) == 64 and _DIGEST.match(value):
            yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _digests(v)
    elif isinstance(value, list):
        for v in value:
            yield from _digests(v)
