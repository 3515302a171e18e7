"""Grading the battery: the patches a session's tests ask for, each layout's once, a few at a
time, each decided by the one result rule from its grade and the policy's findings.

Which families CI grades where: every family once, in one of the two layouts (`ci_layout`:
those that lean on what only `shop` has, unittest classes, a mock, base classes, there; the
rest shared out evenly), gold and the empty patch in both. `EVAL_TEST_BATTERY=full` grades
every family in both layouts (about twice the grades: run it by hand when the guard, the
canaries or the second look change):

    EVAL_TEST_BATTERY=full .venv/bin/python -m pytest tests/grading/test_cheats_docker.py
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from evaluator.grading import GradeOutcome, Grader, GradeRecord, GradeSpec
from evaluator.result import decide, findings

PARALLEL = 4
LAYOUTS = ("calc", "shop")
FULL = os.environ.get("EVAL_TEST_BATTERY", "") == "full"
_ON_SHOP = frozenset({"spares_unittest_classes", "init_subclass_swallows",
                      "build_class_swallows", "only_for_test_doubles", "canary_by_position"})


@dataclass(frozen=True)
class Graded:
    outcome: GradeOutcome
    status: str  # the one result rule's: resolved, failed or policy


def ci_layouts(names: Iterable[str]) -> dict[str, str]:
    """The layout CI grades each family in: `shop` for those that need it, the rest evenly."""
    names = sorted(names)
    out = {n: "shop" for n in names if n in _ON_SHOP}
    for n in names:
        if n not in out:
            calc = sum(1 for v in out.values() if v == "calc")
            out[n] = "calc" if calc <= len(out) - calc else "shop"
    return out


def cases(names: Iterable[str]) -> list:
    """(layout, family) parameters: each family in its CI layout, and in the other one only
    under EVAL_TEST_BATTERY=full."""
    where = ci_layouts(names)
    return [pytest.param(lay, n, id=f"{lay}-{n}") for n in sorted(where) for lay in LAYOUTS
            if FULL or where[n] == lay]


def wanted(session: pytest.Session, layout: str) -> set[str]:
    """The families the session's selected tests read from `layout`'s battery."""
    out = set()
    for item in session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if params.get("layout") == layout and "cheat" in params:
            out.add(params["cheat"])
    return out


def grade(grader: Grader, spec: GradeSpec, hidden: dict[str, bytes], name: str,
          patch: bytes) -> Graded:
    out = grader.grade(spec, patch, hidden)
    record = GradeRecord.of(out, spec, patch="-", rep=0, subject=name, lock_version="-",
                            output="", started=time.time())
    found = findings(patch, list(hidden), spec.test_files, sources=out.sources)
    return Graded(out, decide(record, found))


def grade_all(grader: Grader, spec: GradeSpec, hidden: dict[str, bytes],
              patches: Mapping[str, bytes]) -> dict[str, Graded]:
    with ThreadPoolExecutor(PARALLEL) as pool:
        futures = {n: pool.submit(grade, grader, spec, hidden, n, p) for n, p in patches.items()}
        return {n: f.result() for n, f in futures.items()}
