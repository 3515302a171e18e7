"""The result record: a subject's patch on one task, graded once per grade key, decided by the
one rule, recorded once per result key."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaluator.grading import Grader, GradeRecord, GradeSpec, grade_once, unpack_sources
from evaluator.hashing import hash_json
from evaluator.result._rule import RESOLVED, Findings, decide, findings
from evaluator.store import Record, Store
from evaluator.version import harness_version


@dataclass(frozen=True)
class Graded:
    """A patch's grade, the policy's findings on it, and the status the rule gives them."""

    grade: GradeRecord
    findings: Findings
    status: str

    @property
    def resolved(self) -> bool:
        return self.status == RESOLVED


def grade_patch(store: Store, grader: Grader, spec: GradeSpec, patch: bytes,
                hidden: dict[str, bytes], *, subject: str, owner: str, lock_version: str,
                rep: int = 0, actions: Sequence[str] = ()) -> Graded:
    """Grade `patch` once per grade key (see `grade_once`), read what the policy finds on it
    and on the `actions` that produced it, and decide its status by the one rule."""
    grade = grade_once(store, grader, spec, patch, hidden, subject=subject, owner=owner,
                       lock_version=lock_version, rep=rep)
    sources = unpack_sources(store.get_blob(grade.sources)) if grade.sources else None
    found = findings(patch, hidden, spec.test_files, actions, sources=sources, opaque=grade.opaque)
    return Graded(grade, found, decide(grade, found))


def result_key(of: str, grade: str) -> str:
    """The key of the result of the attempt or prediction keyed `of` with the grade keyed
    `grade`. The version of the policy and the rule (the `result` contract) is in it, not in the
    attempt's key, so a bump decides again from the stored grades, with no agent run and no
    grade made again."""
    return hash_json({"result": of, "grade": grade, "rule": harness_version("result")})


class ResultRecord(Record):
    """What counts: one subject's patch on one task, decided. `attempt` is the attempt's key,
    or the prediction's for a predictions subject."""

    KIND = "result"

    task_set: str
    task_id: str
    subject: str  # the agent's name, or the predictions' model_name_or_path
    status: str  # resolved, failed or policy
    resolved: bool
    sample_idx: int = 0
    attempt: str
    grade: str  # the grade's key
    grade_outcome: str
    violations: list[dict[str, Any]] = []
    flags: list[dict[str, Any]] = []
    exit_reason: str | None = None
    cost: dict[str, Any] = {}
    agent_identity: str  # the subject's identity
    lock_version: str
    grader_version: str
    result_version: str = ""  # the result rule's and policy's (`harness_version("result")`)
    simulated: bool = False
    predictions: bool = False  # a predictions file's row, not an agent's attempt
    instance_id: str | None = None  # a prediction's SWE-bench instance id


def record_result(store: Store, key: str, graded: Graded, *, spec: GradeSpec, subject: str,
                  identity: str, attempt: str, lock_version: str, sample_idx: int = 0,
                  exit_reason: str | None = None, cost: dict[str, Any] | None = None,
                  simulated: bool = False, instance_id: str | None = None) -> ResultRecord:
    """Build and store the result record of `graded` under `key`; the stored one is returned
    (a record that landed first is kept)."""
    record = ResultRecord(
        task_set=spec.task_set, task_id=spec.task_id, subject=subject, status=graded.status,
        resolved=graded.resolved, sample_idx=sample_idx, attempt=attempt, grade=graded.grade.key,
        grade_outcome=graded.grade.outcome,
        violations=[v.to_dict() for v in graded.findings.violations],
        flags=[f.to_dict() for f in graded.findings.flags], exit_reason=exit_reason,
        cost=cost if cost is not None else {"total_usd": 0.0}, agent_identity=identity,
        lock_version=lock_version, grader_version=graded.grade.grader_version,
        result_version=harness_version("result"), simulated=simulated,
        predictions=instance_id is not None, instance_id=instance_id)
    store.write(key, record)
    return store.read(ResultRecord, key) or record.model_copy(update={"key": key})
