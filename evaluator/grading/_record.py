"""The grade record, and the one path that grades a patch once per grade key and records it.

Attempts, predictions and the gold gate (gold, empty and exploit patches) all grade through
`grade_once`: one key for one patch on one pinned task and rep, whoever produced the patch, so
a patch is never graded twice and every grade record has the same shape.
"""

from __future__ import annotations

import time

from evaluator.errors import InfraError
from evaluator.grading._grader import GradeOutcome, Grader
from evaluator.grading._patchfilter import pack_sources
from evaluator.grading._spec import GradeSpec, grade_key
from evaluator.store import Record, Store
from evaluator.version import harness_version


class GradeRecord(Record):
    """One grade: what the run reported (a `GradeOutcome`) and what it was a grade of."""

    KIND = "grade"

    outcome: str
    resolved: bool
    status: str  # the outcome again: the index's column
    tests: dict[str, str] = {}
    exit_code: int | None = None
    timed_out: bool = False
    detail: str = ""
    duration_s: float = 0.0
    dropped: list[str] = []
    opaque: list[dict[str, str]] = []  # {path, why}: left out of the patch as unreadable
    evidence: list[str] = []
    nonce: str = ""
    ids: dict[str, list[str]] = {}  # required ids that are not one test of the run each
    hardening: list[str] = []  # hardening steps the runner cannot take, and why
    backend: dict[str, str] = {}  # which backend ran the grade (`Backend.to_record`); in no key
    task_set: str
    task_id: str
    subject: str  # what the patch is: attempt, prediction, gold, empty (or an exploit family)
    rep: int = 0
    patch: str  # blob
    image: str
    base_commit: str = ""  # older attempt grades did not record these three
    hidden_tests: str = ""
    started: float | None = None
    grader_version: str
    lock_version: str
    output: str = ""  # blob: the run's output
    sources: str = ""  # blob: the new text of the patch's Python files (`unpack_sources`)

    @classmethod
    def of(cls, outcome: GradeOutcome, spec: GradeSpec, *, patch: str, rep: int, subject: str,
           lock_version: str, output: str, started: float, sources: str = "") -> GradeRecord:
        return cls(
            **outcome.to_record(), status=outcome.outcome, task_set=spec.task_set,
            task_id=spec.task_id, subject=subject, rep=rep, patch=patch, image=spec.image,
            base_commit=spec.base_commit, hidden_tests=spec.hidden_tests_hash, started=started,
            grader_version=harness_version("grader"), lock_version=lock_version, output=output,
            sources=sources)


def grade_once(store: Store, grader: Grader, spec: GradeSpec, patch: bytes,
               hidden: dict[str, bytes], *, subject: str, owner: str, lock_version: str,
               rep: int = 0) -> GradeRecord:
    """The grade of `patch` under `spec` at `rep`: the stored one when its key is in the store,
    else graded now and stored. `subject` says what the patch is (the record's field), `owner`
    whose it is (an agent, a predictions subject), for the note an infra error leaves beside the
    key; the error is raised (never recorded as a grade), so the target is retried next run."""
    patch_hash = store.put_blob(patch)
    key = grade_key(spec, patch_hash, rep)
    if (done := store.read(GradeRecord, key)) is not None:
        return done
    started = time.time()
    try:
        outcome = grader.grade(spec, patch, hidden)
    except InfraError as exc:
        store.put_error("grade", key, exc, task_id=spec.task_id, subject=owner)
        raise
    record = GradeRecord.of(outcome, spec, patch=patch_hash, rep=rep, subject=subject,
                            lock_version=lock_version,
                            output=store.put_blob(outcome.output.encode()), started=started,
                            sources=store.put_blob(pack_sources(outcome.sources))
                            if outcome.sources else "")
    store.write(key, record)
    # Another process (or machine, through the remote) may have landed this key first: its
    # record is the grade now.
    return store.read(GradeRecord, key) or record.model_copy(update={"key": key})
