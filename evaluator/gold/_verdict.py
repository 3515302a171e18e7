"""The gold gate's verdict for one task, from its gold and empty-patch grades."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

VALID = "valid"
FLAKY = "flaky"
BROKEN_GOLD = "broken-gold"
PASSES_WITHOUT_FIX = "passes-without-fix"
INCOMPLETE = "incomplete"  # some grade is missing (not run yet, or an infra error)
VERDICTS = (VALID, FLAKY, BROKEN_GOLD, PASSES_WITHOUT_FIX, INCOMPLETE)


def _disagree(grades: Sequence[dict[str, Any]]) -> list[str]:
    """Test ids (or the overall result) whose outcome differs between reps."""
    reasons = []
    if len({g["resolved"] for g in grades}) > 1:
        reasons.append("resolved")
    ids = sorted({t for g in grades for t in g.get("tests", {})})
    reasons += [t for t in ids if len({g.get("tests", {}).get(t, "missing") for g in grades}) > 1]
    return reasons


def decide(
    gold: Sequence[dict[str, Any] | None], empty: Sequence[dict[str, Any] | None]
) -> tuple[str, str]:
    """(verdict, why) from the grade records of every rep; a None rep makes it incomplete.

    Flakiness is judged per test as well as overall: a test that flips between reps is flaky
    even when the task's overall result happens to agree.
    """
    if any(g is None for g in (*gold, *empty)):
        return INCOMPLETE, "some reps have no grade yet; run the gold target again"
    gold_ok = [g for g in gold if g is not None]
    empty_ok = [g for g in empty if g is not None]
    flips = _disagree(gold_ok) + _disagree(empty_ok)
    if flips:
        return FLAKY, "reps disagree on: " + ", ".join(sorted(set(flips))[:8])
    if not gold_ok[0]["resolved"]:
        return BROKEN_GOLD, f"gold patch does not resolve: {gold_ok[0].get('detail', '')}"[:500]
    if empty_ok[0]["resolved"]:
        return PASSES_WITHOUT_FIX, "the tests pass with no patch at all"
    return VALID, f"gold passes and the empty patch fails in all {len(gold_ok)} reps"
