"""The unbiased pass@k estimator of Chen et al. (2021), "Evaluating Large Language Models Trained
on Code", in the product form that never forms a binomial coefficient."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of `k` samples drawn without replacement from `n` attempts,
    `c` of them correct, is correct: 1 - C(n-c, k) / C(n, k).

    Raises ValueError unless 1 <= k <= n and 0 <= c <= n.
    """
    n, c, k = _as_int("n", n), _as_int("c", c), _as_int("k", k)
    if n < 1:
        raise ValueError(f"pass@k needs at least one sample, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"correct count c={c} must lie in [0, n={n}]")
    if k < 1:
        raise ValueError(f"k={k} must be at least 1")
    if k > n:
        raise ValueError(f"k={k} exceeds the n={n} samples drawn; pass@k needs n >= k")
    if n - c < k:
        return 1.0
    # C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i): factorials of a few hundred samples
    # would overflow a float long before this product loses precision.
    failure = math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))
    return 1.0 - failure


def mean_pass_at_k(per_task: Sequence[tuple[int, int]], k: int) -> float:
    """Mean of `pass_at_k(n, c, k)` over tasks given as (n, c) pairs: each task weighs the same."""
    if len(per_task) == 0:
        raise ValueError("mean_pass_at_k needs at least one task")
    total = 0.0
    for index, (n, c) in enumerate(per_task):
        try:
            total += pass_at_k(n, c, k)
        except ValueError as exc:
            raise ValueError(f"task {index}: {exc}") from None
    return total / len(per_task)


def _as_int(name: str, value: int) -> int:
    # operator.index takes numpy integers but refuses 2.0, which would hide a caller's bug.
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
