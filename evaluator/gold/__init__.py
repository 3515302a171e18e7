"""The gold gate: which tasks are valid, flaky, broken-gold or pass without a fix."""

from evaluator.gold._gate import GoldPlan, plan_gold, run_grade, verdicts, write_verdict
from evaluator.gold._verdict import (
    BROKEN_GOLD,
    FLAKY,
    INCOMPLETE,
    PASSES_WITHOUT_FIX,
    VALID,
    VERDICTS,
    decide,
)

__all__ = [
    "BROKEN_GOLD",
    "FLAKY",
    "INCOMPLETE",
    "PASSES_WITHOUT_FIX",
    "VALID",
    "VERDICTS",
    "GoldPlan",
    "decide",
    "plan_gold",
    "run_grade",
    "verdicts",
    "write_verdict",
]
