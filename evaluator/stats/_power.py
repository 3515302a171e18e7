"""How many paired tasks an effect needs before a comparison can resolve it."""

from __future__ import annotations

import math

from scipy import special

from evaluator.stats._checks import check_alpha

# A zero-variance difference would need "zero" tasks by the formula; two is the fewest that
# give any estimate of the spread at all.
_MIN_TASKS = 2

# Float error can push an exact integer such as 16 to 16.000000000001; ceil must not add a task.
_CEIL_SLACK = 1e-9


def tasks_needed(delta: float, sd: float, *, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Paired tasks needed to detect a true mean difference `delta` with a two-sided test at
    `alpha` and the given power, when per-task differences have standard deviation `sd`:
    n = ceil(((z_{1-alpha/2} + z_{power}) * sd / |delta|)^2), at least 2.

    None when `delta` is zero: there is no effect to detect, at any number of tasks.
    """
    check_alpha(alpha)
    if not 0 < power < 1:
        raise ValueError(f"power={power} must lie strictly between 0 and 1")
    if not (math.isfinite(delta) and math.isfinite(sd)) or sd < 0:
        raise ValueError(f"need a finite delta and a finite sd >= 0, got {delta=}, {sd=}")
    if delta == 0.0:
        return None
    z = float(special.ndtri(1 - alpha / 2)) + float(special.ndtri(power))
    n = (z * sd / abs(delta)) ** 2
    return max(_MIN_TASKS, math.ceil(n - _CEIL_SLACK))
