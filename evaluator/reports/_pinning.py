"""Does a stored record come from exactly the inputs the lock pins now?

Records are found by keys derived from the current pins, so a healthy store always passes; these
checks catch records edited by hand, copied from another store, or written by other code, and a
report built on them would be wrong without any sign of it.
"""

from __future__ import annotations

from typing import Any

from evaluator.attempts import PlannedAttempt
from evaluator.gold import VerdictRecord
from evaluator.lock import Lock

GRADED = ("resolved", "failed", "policy")


def check_result(pa: PlannedAttempt, lock: Lock, grader: str, attempt: dict[str, Any],
                 result: dict[str, Any], grade: dict[str, Any] | None) -> list[str]:
    """Every way a result, its attempt and its grade differ from the lock and the plan."""
    where = f"result {pa.label} ({result.get('key', '?')})"
    fix = f"run `doit eval:{lock.task_set}`"
    problems = []
    expected = {"task_set": lock.task_set, "task_id": pa.task.id, "subject": pa.agent.name,
                "sample_idx": pa.sample_idx, "attempt": pa.key}
    for field, want in expected.items():
        if result.get(field) != want:
            problems.append(f"{where}: {field} is {result.get(field)!r}, not {want!r}")
    if result.get("agent_identity") != pa.agent.identity:
        problems.append(f"{where}: agent identity differs: {result.get('agent_identity')} vs "
                        f"{pa.agent.identity} (agent code, config or prompts)")
    if result.get("status") not in GRADED:
        problems.append(f"{where}: unknown status {result.get('status')!r}")
    if result.get("grader_version") != grader:
        problems.append(f"{where}: grader version differs: graded by "
                        f"{result.get('grader_version')}, the harness grader is {grader}: {fix}")
    grade_key = pa.grade_key(str(attempt.get("patch")))
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
        if bool(grade.get("resolved")) != bool(result.get("resolved")) and \
                result.get("status") != "policy":
            problems.append(f"{where}: resolved={result.get('resolved')} but its grade says "
                            f"{grade.get('resolved')}")
    if bool(result.get("resolved")) != (result.get("status") == "resolved"):
        problems.append(f"{where}: resolved={result.get('resolved')} contradicts status "
                        f"{result.get('status')!r}")
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


def carried_over(record: dict[str, Any] | None, lock_version: str) -> str | None:
    """The older lock version a record was made under, when it is not the current one.

    A record found by a key derived from the current pins was made from the same inputs of its
    task; only the set's version label is older (another task or set.yaml changed since). The
    cache rightly keeps such records, so they count, and the report says so.
    """
    if record is None:
        return None
    recorded = record.get("lock_version")
    return str(recorded) if recorded is not None and recorded != lock_version else None
