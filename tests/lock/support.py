"""Shared by the tests that lock a set without a Docker engine: a pin resolver that answers from a
table."""

from __future__ import annotations

from evaluator.hashing import hash_json


class FakeResolver:
    def image(self, ref: str) -> str:
        return "sha256:" + hash_json(ref)

    def commit(self, image: str, workdir: str, ref: str, user: str | None = None) -> str:
        return hash_json([image, ref])[:40]
