"""What a submission's authors published, per instance, kept read-only beside its grades.

A published outcome is only ever what a file of the submission says: `resolved` comes from
`results/results.json` (what the leaderboard counts) or, without it, the instance's
`report.json`; the per-test lists from `report.json`'s `tests_status`; the output from
`test_output.txt`. Where no file says it, it is None (missing), never guessed. The record is
written once per content (its key hashes every entry), so importing the same folder again
changes nothing, and nothing here ever edits one.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.hashing import hash_json
from evaluator.store import Record, Store

F2P, P2P = "FAIL_TO_PASS", "PASS_TO_PASS"


class PublishedEntry(BaseModel):
    """One instance as the submission published it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    instance_id: str
    task_id: str | None = None  # the task of this set it maps to; None: not in the set
    resolved: bool | None = None  # None: no file of the submission says
    source: str = ""  # which file `resolved` comes from
    applied: bool | None = None  # report.json's patch_successfully_applied
    tests: dict[str, dict[str, list[str]]] | None = None  # tests_status: F2P/P2P success/failure
    output: str = ""  # blob: the instance's test_output.txt (or old eval log), as published
    output_file: str = ""  # its path inside the submission
    harness: str = ""  # the shape of its report: which harness generation wrote it
    notes: list[str] = []  # what the files say beside the outcome (no_logs, unreadable, ...)
    conflicts: list[str] = []  # where its own files contradict each other

    def passed(self, test: str) -> bool | None:
        """The test's published outcome: True (success), False (failure), None (not listed)."""
        for kind in (F2P, P2P):
            lists = (self.tests or {}).get(kind, {})
            if test in lists.get("success", []):
                return True
            if test in lists.get("failure", []):
                return False
        return None

    def listed(self, kind: str) -> list[str]:
        lists = (self.tests or {}).get(kind, {})
        return [*lists.get("success", []), *lists.get("failure", [])]


class PublishedRecord(Record):
    """A submission's published outcomes on a set; `subject` is the name its predictions are
    graded under."""

    KIND = "published"

    task_set: str
    subject: str
    split: str = ""  # lite, verified, test ... (the submission's folder says)
    folder: str = ""  # where it was imported from (provenance only)
    models: list[str] = []  # the model_name_or_path values its predictions name
    shape: list[str] = []  # the files it had, and which report shapes
    entries: list[PublishedEntry] = []
    imported_at: float = 0.0

    def entry(self, instance_id: str) -> PublishedEntry | None:
        return next((e for e in self.entries if e.instance_id == instance_id), None)


def published_key(record: PublishedRecord) -> str:
    body = record.body()
    body.pop("imported_at", None)
    body.pop("folder", None)  # the same files from another place are the same submission
    return hash_json({"published": body})


def write_published(store: Store, record: PublishedRecord) -> PublishedRecord:
    """Store `record` once per content; the stored one is returned (a re-import is a no-op)."""
    key = published_key(record)
    if (done := store.read(PublishedRecord, key)) is not None:
        return done
    store.write(key, record.model_copy(update={"imported_at": time.time()}))
    return store.read(PublishedRecord, key) or record.model_copy(update={"key": key})


def published(store: Store, task_set: str) -> dict[str, PublishedRecord]:
    """Each subject's most recently imported submission on the set."""
    latest: dict[str, PublishedRecord] = {}
    for rec in store.select_readable(PublishedRecord, task_set=task_set):
        if rec.subject not in latest or rec.imported_at > latest[rec.subject].imported_at:
            latest[rec.subject] = rec
    return dict(sorted(latest.items()))


def counts(record: PublishedRecord) -> dict[str, Any]:
    """What the submission claims, counted: for the report beside our numbers."""
    said = [e for e in record.entries if e.resolved is not None]
    return {"instances": len(record.entries), "published": len(said),
            "resolved": sum(bool(e.resolved) for e in said),
            "missing": len(record.entries) - len(said)}
