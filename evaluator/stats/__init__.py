"""Statistics for agent evaluations: pass@k, resolve rates with intervals, paired comparisons.

Pure functions on plain data. The task is the unit of analysis throughout: a task's score is
the mean of its samples, and intervals and tests treat tasks, not samples, as independent.
Each paired comparison has one deciding test, and its verdict, p-value and interval agree.
"""

from evaluator.stats._multiple import holm_adjust, holm_levels
from evaluator.stats._paired import (
    DECISIONS,
    Decision,
    PairedResult,
    Verdict,
    paired_comparison,
    paired_comparisons,
)
from evaluator.stats._passk import mean_pass_at_k, pass_at_k
from evaluator.stats._power import tasks_needed
from evaluator.stats._rate import RateEstimate, resolve_rate
from evaluator.stats._score import score_interval
from evaluator.stats._sequential import anytime_p_value, mixture_e_value
from evaluator.stats._significance import mcnemar_exact

__all__ = [
    "DECISIONS",
    "Decision",
    "PairedResult",
    "RateEstimate",
    "Verdict",
    "anytime_p_value",
    "holm_adjust",
    "holm_levels",
    "mcnemar_exact",
    "mean_pass_at_k",
    "mixture_e_value",
    "paired_comparison",
    "paired_comparisons",
    "pass_at_k",
    "resolve_rate",
    "score_interval",
    "tasks_needed",
]
