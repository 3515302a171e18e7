"""Does a stored record come from exactly the inputs the lock pins now?

Records are found by keys derived from the current pins, so a healthy store always passes; these
checks catch records edited by hand, copied from another store, or written by other code, and a
report built on them would be wrong without any sign of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.attempts import PlannedAttempt
from evaluator.gold import VerdictRecord
from evaluator.lock import Lock

GRADED = ("resolved", "failed", "policy")
# What a result's fields must be, as the index returns them (JSON booleans as 0 or 1).
_TYPES = (("status", str, "a string"), ("resolved", int, "a boolean"),
          ("sample_idx", int, "an integer"), ("grade", str, "a grade key"))


def check_result(pa: PlannedAttempt, lock: Lock, grader: str, patch: str,
                 result: Mapping[str, Any], grade: Mapping[str, Any] | None) -> list[str]:
    """Every way a result, its attempt (by its `patch`) and its grade differ from the lock and
    the plan; the records as the index holds them (field -> value)."""
    where = f"result {pa.label} ({result.get('key') or '?'})"
    fix = f"run `doit eval:{lock.task_set}`"
    for field, kinds, what in _TYPES:
        if not isinstance(result.get(field), kinds):
            return [f"result record {result.get('key')}: field {field!r}: {what}, not "
                    f"{result.get(field)!r}; the record is not one this harness wrote (remove it, "
                    f"or restore it from the remote, and run again)"]
    problems = []
    expected = {"task_set": lock.task_set, "task_id": pa.task.id, "subject": pa.agent.name,
                "sample_idx": pa.sample_idx, "attempt": pa.key}
    for field, want in expected.items():
        if (got := result.get(field)) != want:
            problems.append(f"{where}: {field} is {got!r}, not {want!r}")
    if result.get("agent_identity") != pa.agent.identity:
        problems.append(f"{where}: agent identity differs: {result.get('agent_identity')} vs "
                        f"{pa.agent.identity} (agent code, config or prompts)")
    status, resolved = result.get("status"), bool(result.get("resolved"))
    if status not in GRADED:
        problems.append(f"{where}: unknown status {status!r}")
    if result.get("grader_version") != grader:
        problems.append(f"{where}: grader version differs: graded by "
                        f"{result.get('grader_version')}, the harness grader is {grader}: {fix}")
    grade_key = pa.grade_key(patch)
    if result.get("grade") != grade_key:
        problems.append(f"{where}: its grade {result.get('grade')} is not the grade of the "
                        f"attempt's patch under the lock's pins ({grade_key})")
    if grade is None:
        problems.append(f"{where}: its grade record {result.get('grade')} is missing: {fix}")
    else:
        pinned = lock.pin(pa.task.id).image
        if grade.get("image") != pinned:
            problems.append(f"{where}: image differs: graded in {grade.get('image')}, the lock "
                            f"pins {pinned}")
        if grade.get("grader_version") != grader:
            problems.append(f"{where}: grade made by grader {grade.get('grader_version')}, the "
                            f"harness grader is {grader}: {fix}")
        if bool(grade.get("resolved")) != resolved and status != "policy":
            problems.append(f"{where}: resolved={resolved} but its grade says "
                            f"{bool(grade.get('resolved'))}")
    if resolved != (status == "resolved"):
        problems.append(f"{where}: resolved={resolved} contradicts status {status!r}")
    return problems


def check_verdict(task_id: str, verdict: VerdictRecord, lock: Lock, grader: str) -> list[str]:
    """A verdict found by its key; a grader version is only checked where it was recorded."""
    where = f"verdict of {task_id!r}"
    problems = []
    if verdict.task_set != lock.task_set or verdict.task_id != task_id:
        problems.append(f"{where}: the record is for {verdict.task_set!r}/{verdict.task_id!r}")
    recorded = verdict.grader_version
    if recorded and recorded != grader:
        problems.append(f"{where}: grader version differs: decided by {recorded}, the harness "
                        f"grader is {grader}: run `doit gold:{lock.task_set}`")
    return problems


def carried_over(recorded: str | None, lock_version: str) -> str | None:
    """The older lock version a record was made under (its `lock_version`), when it is not the
    current one.

    A record found by a key derived from the current pins was made from the same inputs of its
    task; only the set's version label is older (another task or set.yaml changed since). The
    cache rightly keeps such records, so they count, and the report says so.
    """
    return recorded if recorded is not None and recorded != lock_version else None
