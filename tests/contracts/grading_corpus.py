"""The corpus of patches whose grades pin the `grader` contract (and, decided by the policy and
the rule, the `result` contract): on the `shop` layout of the cheat battery (a root conftest, a
fixture, a base class, parametrized ids with spaces, a unittest class, a mock), the gold patch,
the empty patch, a partial fix, a fix that also edits a pinned test file and the conftest
(restored as pinned), and every bundled exploit family built for the task."""

from __future__ import annotations

from typing import Any

from evaluator.gold import FAMILIES
from evaluator.gold._exploits import NotApplicable, exploit_patch
from evaluator.gold._target import target
from evaluator.grading import GradeOutcome, GradeSpec
from tests.grading.layouts import SHOP
from tests.grading.patches import cover, replace_file

# A fix that also weakens a pinned test and its conftest: both are restored as pinned.
_VISIBLE = SHOP.repo["tests/test_visible.py"]
EDITS_TESTS = (replace_file(SHOP.buggy, SHOP.broken, SHOP.correct)
               + replace_file("tests/test_visible.py", _VISIBLE, "def test_nothing():\n    pass\n")
               + replace_file("conftest.py", SHOP.repo["conftest.py"], "import sys\n"))


def corpus(spec: GradeSpec, hidden: dict[str, bytes]) -> dict[str, bytes]:
    """Name -> patch; an exploit family that does not apply to the task is left out (which ones
    apply is the `exploits` contract's, pinned by its own golden)."""
    out = {"gold": SHOP.gold.encode(), "empty": b"", "partial": cover(SHOP).encode(),
           "edits-pinned-tests": EDITS_TESTS.encode()}
    tgt = target(spec, SHOP.gold.encode(), hidden)
    for fam in FAMILIES:
        try:
            out[f"exploit:{fam.name}"] = exploit_patch(fam, tgt)
        except NotApplicable:
            continue
    return out


def observed(spec: GradeSpec, outcome: GradeOutcome) -> dict[str, Any]:
    """What of a grade the contract pins: outcome, the required tests' statuses, what the patch
    filter did, the hardening; not the nonce, canary names, timings or output, which differ by
    design from grade to grade."""
    required = set(spec.fail_to_pass) | set(spec.pass_to_pass)
    return {"outcome": outcome.outcome, "resolved": outcome.resolved,
            "tests": {t: s for t, s in sorted(outcome.tests.items()) if t in required},
            "timed_out": outcome.timed_out, "dropped": sorted(outcome.dropped),
            "opaque": sorted(p for p, _ in outcome.opaque), "hardening": list(outcome.hardening),
            "evidence": len(outcome.evidence) > 0}
