"""The `verdict` contract: the gold gate's decision for a table of gold and empty-patch reps
(valid, flaky, broken gold, passes without the fix, incomplete; PASS_TO_PASS tests dropped as
flaky), as recorded for its version."""

from __future__ import annotations

from typing import Any

from evaluator.gold import decide_tests
from tests.contracts.golden import check
from tests.records import grade_record as rec

F2P, P2P = ["f1", "f2"], ["p1", "p2"]
OK = {"f1": "passed", "f2": "passed", "p1": "passed", "p2": "passed"}
BUG = {"f1": "failed", "f2": "failed", "p1": "passed", "p2": "passed"}
CASES: dict[str, tuple[list[Any], list[Any]]] = {
    "valid": ([rec("resolved", **OK)] * 3, [rec("unresolved", **BUG)] * 3),
    "broken-gold": ([rec("unresolved", **{**OK, "f2": "failed"})] * 3,
                    [rec("unresolved", **BUG)] * 3),
    "passes-without-fix": ([rec("resolved", **OK)] * 3, [rec("resolved", **OK)] * 3),
    "f2p-flips": ([rec("resolved", **OK), rec("unresolved", **{**OK, "f1": "failed"}),
                   rec("resolved", **OK)], [rec("unresolved", **BUG)] * 3),
    "p2p-flips-in-gold": ([rec("resolved", **OK), rec("unresolved", **{**OK, "p1": "failed"}),
                           rec("resolved", **OK)], [rec("unresolved", **BUG)] * 3),
    "p2p-flips-in-empty": ([rec("resolved", **OK)] * 3,
                           [rec("unresolved", **BUG), rec("unresolved", **{**BUG, "p2": "failed"}),
                            rec("unresolved", **BUG)]),
    "p2p-fails-in-every-gold-rep": ([rec("unresolved", **{**OK, "p1": "failed"})] * 3,
                                    [rec("unresolved", **BUG)] * 3),
    "p2p-skipped": ([rec("unresolved", **{**OK, "p2": "skipped"})] * 3,
                    [rec("unresolved", **{**BUG, "p2": "skipped"})] * 3),
    "tampered-gold": ([rec("tampered", **OK)] * 3, [rec("unresolved", **BUG)] * 3),
    "no-report": ([rec("no_report")] * 3, [rec("no_report")] * 3),
    "missing-rep": ([rec("resolved", **OK), None, rec("resolved", **OK)],
                    [rec("unresolved", **BUG)] * 3),
}


def test_the_gate_decides_what_the_verdict_contract_recorded() -> None:
    observed = {}
    for name, (gold, empty) in CASES.items():
        d = decide_tests(gold, empty, F2P, P2P)
        observed[name] = {"verdict": d.verdict, "why": d.why, "dropped": d.dropped}
    check("verdict", "decisions", observed)
