"""The gold gate: which tasks are valid, flaky, broken-gold or pass without a fix."""

from evaluator.gold._gate import (
    GoldPlan,
    plan_gold,
    required_spec,
    run_grade,
    verdicts,
    write_verdict,
)
from evaluator.gold._verdict import (
    BROKEN_GOLD,
    FLAKY,
    INCOMPLETE,
    PASSES_WITHOUT_FIX,
    VALID,
    VERDICTS,
    Decision,
    decide,
    decide_tests,
)

__all__ = [
    "BROKEN_GOLD",
    "FLAKY",
    "INCOMPLETE",
    "PASSES_WITHOUT_FIX",
    "VALID",
    "VERDICTS",
    "Decision",
    "GoldPlan",
    "decide",
    "decide_tests",
    "plan_gold",
    "required_spec",
    "run_grade",
    "verdicts",
    "write_verdict",
]
