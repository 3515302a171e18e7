"""The one rule: a grade and the policy's findings decide `resolved`, `failed` or `policy`.

Every subject (an agent's attempt, a predictions file's row) and every patch the gold gate
grades to see whether it can be forged is decided here, the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from evaluator.grading import TAMPERED, GradeRecord
from evaluator.policy import (
    UNREADABLE,
    Finding,
    Violation,
    check_patch,
    check_trajectory,
    scan_patch,
)

RESOLVED, FAILED, POLICY = "resolved", "failed", "policy"
STATUSES = (RESOLVED, FAILED, POLICY)


@dataclass(frozen=True)
class Findings:
    """What the policy found: violations decide (any one makes the result a policy failure);
    flags are evidence for a person and decide nothing."""

    violations: tuple[Violation, ...] = ()
    flags: tuple[Finding, ...] = ()


def findings(patch: bytes, hidden: Iterable[str], test_files: Sequence[str],
             actions: Sequence[str] = (), *, sources: Mapping[str, bytes] | None = None,
             opaque: Sequence[Mapping[str, str]] = ()) -> Findings:
    """The policy's findings on a patch (the files it touches, the Python it adds, read whole
    where the grade read `sources` back) and on the commands that produced it (an agent's
    actions; none for a predictions file); the files the grade left out as unreadable
    (`opaque`) are flags."""
    hidden = list(hidden)
    scanned = scan_patch(patch, sources)
    violations = [*check_patch(patch, hidden, test_files), *check_trajectory(actions, hidden),
                  *(Violation(f.reason, f"{f.path}:{f.line}: {f.text}")
                    for f in scanned if f.fatal)]
    left_out = [Finding(UNREADABLE, o.get("path", ""), 0, o.get("why", "")) for o in opaque]
    return Findings(tuple(violations), (*(f for f in scanned if not f.fatal), *left_out))


def decide(grade: GradeRecord, found: Findings) -> str:
    """`policy` when the policy found a violation or the grade shows a forged result (a
    tampered grade is a policy failure in every report, like a rule the patch broke); else
    `resolved` when the grade resolved, `failed` otherwise."""
    if found.violations or grade.outcome == TAMPERED:
        return POLICY
    return RESOLVED if grade.resolved else FAILED
