"""Statistics for agent evaluations: pass@k, resolve rates with intervals, paired comparisons.

Pure functions on plain data. The task is the unit of analysis throughout: a task's score is
the mean of its samples, and intervals and tests treat tasks, not samples, as independent.
"""

from evaluator.stats._paired import PairedResult, Verdict, paired_comparison
from evaluator.stats._passk import mean_pass_at_k, pass_at_k
from evaluator.stats._power import tasks_needed
from evaluator.stats._rate import RateEstimate, resolve_rate
from evaluator.stats._significance import mcnemar_exact

__all__ = [
    "PairedResult",
    "RateEstimate",
    "Verdict",
    "mcnemar_exact",
    "mean_pass_at_k",
    "paired_comparison",
    "pass_at_k",
    "resolve_rate",
    "tasks_needed",
]
