"""The `result` contract: the policy's findings on the gold, empty and exploit patches of each
demo task and of the `shop` layout, on a set of agent actions, and the one rule's status for
each grade outcome with and without a violation, as recorded for its version."""

from __future__ import annotations

from typing import Any

from evaluator.gold import FAMILIES
from evaluator.gold._exploits import NotApplicable, exploit_patch
from evaluator.grading import (
    NO_REPORT,
    PATCH_FAILED,
    PATCH_REJECTED,
    RESOLVED,
    TAMPERED,
    UNRESOLVED,
)
from evaluator.result import Findings, decide, findings
from tests.contracts.golden import check
from tests.contracts.pure_cases import cases
from tests.records import grade_record

OUTCOMES = (RESOLVED, UNRESOLVED, PATCH_REJECTED, PATCH_FAILED, NO_REPORT, "inconsistent_report",
            TAMPERED)
ACTIONS = ("ls", "cat src/app.py", "git log --all --oneline", "git reflog",
           "find / -name '*.patch'", "cat /eval/hidden/tests/test_x.py", "python -m pytest -x",
           "git show HEAD~1:src/app.py", "ls .git/refs", "cat tests/test_visible.py")


def _said(found: Findings) -> dict[str, Any]:
    return {"violations": [[v.reason, v.detail] for v in found.violations],
            "flags": [[f.reason, f.path, f.line] for f in found.flags]}


def test_the_policy_and_the_rule_decide_what_the_result_contract_recorded() -> None:
    observed: dict[str, Any] = {"patches": {}, "actions": {}, "rule": {}}
    for name, (spec, gold, hidden, tgt) in cases().items():
        row = observed["patches"][name] = {
            "gold": _said(findings(gold, hidden, spec.test_files)),
            "empty": _said(findings(b"", hidden, spec.test_files))}
        for fam in FAMILIES:
            try:
                patch = exploit_patch(fam, tgt)
            except NotApplicable:
                continue
            row[fam.name] = _said(findings(patch, hidden, spec.test_files))
    hidden = ["tests/test_x.py"]
    observed["actions"] = {a: _said(findings(b"", hidden, (), [a])) for a in ACTIONS}
    violation = findings(b"", hidden, (), ["git log --all --oneline"])
    for outcome in OUTCOMES:
        grade = grade_record(outcome)
        observed["rule"][outcome] = {"clean": decide(grade, Findings()),
                                     "violation": decide(grade, violation)}
    check("result", "findings-and-rule", observed)
