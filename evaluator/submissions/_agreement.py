"""A submission's agreement table: for each instance it published, its outcome beside ours (the
grade of the same patch, under the same keys as any prediction), per test where the two differ,
and the cause of each difference (`_causes`). Nothing is graded here: a row with no grade says
why (not in the set, not valid in our gold gate, not graded yet)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.gold import BROKEN_GOLD, EXPLOITABLE, FLAKY, PASSES_WITHOUT_FIX, VerdictRecord
from evaluator.grading import GradeRecord, official_keeps
from evaluator.lock import Lock
from evaluator.result import ResultRecord
from evaluator.store import Store
from evaluator.subjects import PlannedPrediction, planned_of, prediction_subjects
from evaluator.submissions._causes import ENVIRONMENT, INTEGRITY, Evidence, classify
from evaluator.submissions._published import F2P, P2P, PublishedEntry, PublishedRecord
from evaluator.submissions._reading import excerpt, read_with_ours, status_of
from evaluator.submissions._table import (
    AGREE,
    DISAGREE,
    UNPUBLISHED,
    UNVERIFIED,
    Row,
    Table,
    TestDiff,
    count,
)
from evaluator.taskset import Task, TaskSet

MAX_DIFFS = 20  # per instance: the table names the first ones, the count says how many
_GATE_CAUSE = {BROKEN_GOLD: ENVIRONMENT, FLAKY: ENVIRONMENT, PASSES_WITHOUT_FIX: ENVIRONMENT,
               EXPLOITABLE: INTEGRITY}


def agreement(store: Store, task_set: TaskSet, lock: Lock, gate: Mapping[str, VerdictRecord],
              record: PublishedRecord) -> Table:
    """The table of `record` (a submission imported on `task_set`) against our grades."""
    subject = prediction_subjects(store, task_set.name).get(record.subject)
    planned = ({pp.task.id: pp for pp in planned_of(store, task_set, lock, subject, gate)}
               if subject is not None else {})
    tasks = {t.id: t for t in task_set.tasks}
    rows = tuple(_row(store, e, tasks, gate, planned) for e in record.entries)
    return Table(task_set.name, record.subject, record.split, tuple(record.models), rows,
                 tuple(record.shape), count(rows))


def _row(store: Store, e: PublishedEntry, tasks: Mapping[str, Task],
         gate: Mapping[str, VerdictRecord], planned: Mapping[str, PlannedPrediction]) -> Row:
    base: dict[str, Any] = {"instance_id": e.instance_id, "task_id": e.task_id, "published": e.resolved,
            "notes": (*e.notes, *e.conflicts), "source": e.source}
    missing = UNPUBLISHED if e.resolved is None else UNVERIFIED
    task = tasks.get(e.task_id or "")
    if task is None:
        return Row(**base, ours="not in the set", state=missing,
                   why=f"no task of this set is instance {e.instance_id} (import its row with "
                       "`evaluator import swebench`)")
    verdict = gate.get(task.id)
    if verdict is None or not verdict.valid:
        name = verdict.verdict if verdict is not None else "undecided"
        return Row(**base, ours=f"not graded: {name} in our gold gate", state=missing,
                   cause=_GATE_CAUSE.get(name, "") if e.resolved is not None else "",
                   why=verdict.why if verdict is not None else "run the gold gate")
    pp = planned.get(task.id)
    result = store.read(ResultRecord, pp.result_key) if pp is not None else None
    grade = store.read(GradeRecord, result.grade) if result is not None else None
    if pp is None or result is None or grade is None:
        return Row(**base, ours="not graded yet", state=missing,
                   why="grade the submission (`evaluator import submission` again): its "
                       "prediction has no result under the current pins")
    their_output = _text(store, e.output)
    our_output = _text(store, grade.output)
    read, _why = read_with_ours(their_output, task.spec.results) if their_output else (None, "")
    required = {F2P: list(pp.spec.fail_to_pass), P2P: list(pp.spec.pass_to_pass)}
    diffs = _diffs(e, task, grade, required, read, their_output, our_output)
    state = UNPUBLISHED if e.resolved is None else AGREE if e.resolved == result.resolved \
        else DISAGREE
    tests_agree = None if e.tests is None else not any(d.published is not None for d in diffs)
    cause = why = ""
    if state == DISAGREE or tests_agree is False:
        cause, why = classify(Evidence(e, task.spec.results, result, grade, verdict,
                                       tuple(diffs), required, their_output, our_output,
                                       read is not None))
    if state == UNPUBLISHED:
        why = "no file of the submission says whether it resolved" + (
            f" ({'; '.join(e.notes)})" if e.notes else "")
    return Row(**base, ours=result.status, state=state, cause=cause, why=why,
               tests_agree=tests_agree, tests=tuple(diffs[:MAX_DIFFS]), grade=grade.key,
               result=result.key)


def _diffs(e: PublishedEntry, task: Task, grade: GradeRecord, required: dict[str, list[str]],
           read: dict[str, str] | None, their_output: str, our_output: str) -> list[TestDiff]:
    """Required tests whose status differs: published lists against ours; where nothing is
    listed, their output as our reader reads it against ours."""
    keeps = set(official_keeps(task.spec.results, our_output, required[P2P])) \
        if task.spec.pass_to_pass_rule == "swebench" else set()
    runner = task.spec.results
    out = []
    for kind, ids in required.items():
        for t in ids:
            ours = grade.tests.get(t, "missing")
            ours = "kept" if ours == "skipped" and t in keeps else ours
            passed = ours in ("passed", "kept")
            theirs = e.passed(t)
            reading = status_of(read, t, runner) if read is not None else ""
            if theirs is None and e.tests is not None and passed:
                continue  # not listed by them, passed here: it changes nothing
            if theirs is None and e.tests is None:
                their_passed = reading in ("passed", "xfailed") if reading not in ("", "missing") \
                    else None
                if their_passed is None or their_passed == passed:
                    continue
            elif theirs == passed:
                continue
            out.append(_diff(t, kind, theirs, ours, reading, their_output, our_output))
    for kind in (F2P, P2P):
        for t in e.listed(kind):
            if t not in required[F2P] and t not in required[P2P] and e.passed(t) is False:
                reading = status_of(read, t, runner) if read is not None else ""
                out.append(_diff(t, kind, False, "not required", reading, their_output,
                                 our_output))
    return out


def _diff(test: str, kind: str, theirs: bool | None, ours: str, reading: str, their_output: str,
          our_output: str) -> TestDiff:
    return TestDiff(test, kind, theirs, ours, excerpt(their_output, test),
                    excerpt(our_output, test), reading)


def _text(store: Store, blob: str) -> str:
    if not blob:
        return ""
    return store.get_blob(blob).decode("utf-8", "replace")
