"""Making a task's calibration (`_pool`): its four grades, stored like any grade, and the record
the grades of the task then read (`with_pool`)."""

from __future__ import annotations

from typing import Any

from evaluator.grading._outcome import GradeOutcome, Grader
from evaluator.grading._pool import EMPTY, GRADES, TWINS, CalibrationRecord, Pool, pool_from
from evaluator.grading._record import GradeRecord, grade_once
from evaluator.grading._spec import GradeSpec
from evaluator.grading._twins import Candidate
from evaluator.store import Store
from evaluator.version import harness_version


def calibration_grades(spec: GradeSpec) -> list[tuple[str, GradeSpec, str]]:
    """(name, spec, patch: "gold" or "empty") of each calibration grade, in order (the empty
    patch runs with every twin, as the gold patch's `twins` grade does)."""
    return [(name, spec.calibrating(TWINS if name == EMPTY else name), patch)
            for name, patch in GRADES]


def calibrate(store: Store, grader: Grader, spec: GradeSpec, gold: bytes,
              hidden: dict[str, bytes], *, lock_version: str) -> CalibrationRecord:
    """The task's calibration record: stored already, or made now from its four grades (each
    graded once per key, like any grade) and stored."""
    if (done := store.read(CalibrationRecord, spec.pool_key)) is not None:
        return done
    grades: dict[str, Any] = {}
    for name, cspec, which in calibration_grades(spec):
        grades[name] = grade_once(store, grader, cspec, gold if which == "gold" else b"", hidden,
                                  subject=f"calibration:{name}", owner="calibration",
                                  lock_version=lock_version)
    return _store(store, spec, grades)


def _store(store: Store, spec: GradeSpec, grades: dict[str, GradeRecord]) -> CalibrationRecord:
    c = pool_from(grades, (*spec.fail_to_pass, *spec.pass_to_pass))
    record = CalibrationRecord(
        task_set=spec.task_set, task_id=spec.task_id, renamed=c.renamed, why=c.why,
        twins=c.twins, rejected=c.rejected, empty=c.empty, looked=c.looked, varied=c.varied,
        unlooked=c.unlooked, silent=c.silent, grades=[g.key for g in grades.values()],
        grader_version=harness_version("grader"))
    store.write(spec.pool_key, record)
    return store.read(CalibrationRecord, spec.pool_key) or record


def calibrate_now(grader: Grader, spec: GradeSpec, gold: bytes, hidden: dict[str, bytes]
                  ) -> tuple[Pool, dict[str, GradeOutcome]]:
    """A calibration made without a store (tests, benchmarks): the pool `spec` then grades
    with (`replace(spec, pool=...)`), and its four grades."""
    grades = {name: grader.grade(cspec, gold if which == "gold" else b"", hidden)
              for name, cspec, which in calibration_grades(spec)}
    c = pool_from(grades, (*spec.fail_to_pass, *spec.pass_to_pass))
    pool = Pool(spec.pool_key or "local", c.renamed,
                tuple(Candidate.from_dict(t) for t in c.twins), frozenset(c.looked),
                frozenset(c.varied))
    return pool, grades
