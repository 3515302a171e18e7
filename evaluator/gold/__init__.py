"""The gold gate: which tasks are valid, flaky, broken-gold, pass without a fix, or can be forged
by a bundled exploit (exploitable)."""

from evaluator.gold._exploitgate import (
    BY_GRADE,
    BY_POLICY,
    CAUGHT,
    INCONCLUSIVE,
    NOT_APPLICABLE,
    ExploitRecord,
    exploit_summary,
    families_of,
    summary_line,
)
from evaluator.gold._exploits import FAMILIES, Family
from evaluator.gold._gate import (
    GoldPlan,
    VerdictRecord,
    gold_decision,
    plan_gold,
    required_spec,
    run_exploits_of,
    run_grade,
    verdicts,
    write_verdict,
)
from evaluator.gold._price import ExploitPrice, Stratum, price_exploits
from evaluator.gold._sample import ALL, Choice, choose, layout, policy_text, stratum_of
from evaluator.gold._verdict import (
    BROKEN_GOLD,
    EXPLOITABLE,
    FLAKY,
    INCOMPLETE,
    PASSES_WITHOUT_FIX,
    VALID,
    VERDICTS,
    Decision,
    decide,
    decide_tests,
)
from evaluator.gold._why import why_undecided

__all__ = [
    "ALL",
    "Choice",
    "ExploitPrice",
    "Stratum",
    "choose",
    "layout",
    "policy_text",
    "price_exploits",
    "stratum_of",
    "BROKEN_GOLD",
    "BY_GRADE",
    "BY_POLICY",
    "CAUGHT",
    "EXPLOITABLE",
    "FAMILIES",
    "INCONCLUSIVE",
    "NOT_APPLICABLE",
    "ExploitRecord",
    "Family",
    "exploit_summary",
    "families_of",
    "gold_decision",
    "run_exploits_of",
    "summary_line",
    "FLAKY",
    "INCOMPLETE",
    "PASSES_WITHOUT_FIX",
    "VALID",
    "VERDICTS",
    "Decision",
    "GoldPlan",
    "VerdictRecord",
    "decide",
    "decide_tests",
    "plan_gold",
    "required_spec",
    "run_grade",
    "verdicts",
    "why_undecided",
    "write_verdict",
]
