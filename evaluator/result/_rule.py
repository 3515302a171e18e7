"""The one rule: a grade and the policy's findings decide `resolved`, `flagged`, `failed` or
`policy`.

- `policy`: the policy found a violation, or the grade shows a forged result (`tampered`);
- `resolved`: the grade resolved and nothing was flagged: the headline counts it;
- `flagged`: the grade resolved, but something is for a person to read first (the allow-list's
  `outside_allow_list`, a computed name, a file left out as unreadable, a fix the grade found
  `environment-sensitive`): shown beside the headline ("+N flagged, awaiting review") and
  counted in it only once a person accepts it in the set's reviews file (`_review`);
- `failed`: anything else.

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

RESOLVED, FLAGGED, FAILED, POLICY = "resolved", "flagged", "failed", "policy"
STATUSES = (RESOLVED, FLAGGED, FAILED, POLICY)
# A grade's own flag, as the policy's findings carry it.
ENVIRONMENT_SENSITIVE = "environment_sensitive"


@dataclass(frozen=True)
class Findings:
    """What the policy found: violations decide (any one makes the result a policy failure);
    flags are evidence for a person and decide nothing."""

    violations: tuple[Violation, ...] = ()
    flags: tuple[Finding, ...] = ()


def findings(patch: bytes, hidden: Iterable[str], test_files: Sequence[str],
             actions: Sequence[str] = (), *, sources: Mapping[str, bytes] | None = None,
             opaque: Sequence[Mapping[str, str]] = (), grade_flags: Sequence[str] = ()
             ) -> Findings:
    """The policy's findings on a patch (the files it touches, the Python it adds, read whole
    where the grade read `sources` back) and on the commands that produced it (an agent's
    actions; none for a predictions file); the files the grade left out as unreadable
    (`opaque`) and the grade's own flags (`grade_flags`: environment-sensitive) are flags."""
    hidden = list(hidden)
    scanned = scan_patch(patch, sources)
    violations = [*check_patch(patch, hidden, test_files), *check_trajectory(actions, hidden),
                  *(Violation(f.reason, f"{f.path}:{f.line}: {f.text}")
                    for f in scanned if f.fatal)]
    left_out = [Finding(UNREADABLE, o.get("path", ""), 0, o.get("why", "")) for o in opaque]
    graded = [Finding(ENVIRONMENT_SENSITIVE, "", 0, text) for text in grade_flags]
    return Findings(tuple(violations), (*(f for f in scanned if not f.fatal), *left_out,
                                        *graded))


def decide(grade: GradeRecord, found: Findings) -> str:
    """`policy` when the policy found a violation or the grade shows a forged result (a
    tampered grade is a policy failure in every report, like a rule the patch broke); else
    `flagged` when the grade resolved with a flag (the policy's or its own), `resolved` when
    it resolved with none, `failed` otherwise."""
    if found.violations or grade.outcome == TAMPERED:
        return POLICY
    if not grade.resolved:
        return FAILED
    return FLAGGED if found.flags or grade.flags else RESOLVED
