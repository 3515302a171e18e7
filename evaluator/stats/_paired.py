"""Paired comparisons of agents on the same tasks, the task being the unit, with one decision
rule per comparison and family-wise error control across the comparisons of one report."""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from evaluator.stats._checks import check_alpha
from evaluator.stats._evidence import Evidence, gather
from evaluator.stats._jsonable import DECIMALS, to_dict
from evaluator.stats._multiple import holm_adjust, holm_levels
from evaluator.stats._sequential import anytime_p_value

Verdict = Literal["better", "worse", "within noise"]
Decision = Literal["fixed", "sequential"]
DECISIONS: tuple[Decision, ...] = ("fixed", "sequential")
SEQUENTIAL_TEST = "mixture_sprt"

# Error messages list at most this many task ids; the count says how many more there are.
_MAX_IDS_SHOWN = 20

Outcomes = Mapping[str, Sequence[int]]


@dataclass(frozen=True)
class PairedResult:
    """B compared with A on `n_tasks` shared tasks; `delta` = mean_b - mean_a over task means.

    One test decides the verdict: `test` names it and `p_value` is its p-value, `p_adjusted`
    the same after Holm's procedure over the `family_size` comparisons decided together (equal
    to `p_value` for a family of one). The verdict is "better" or "worse" iff `p_adjusted` <
    `alpha`, and then [`lo`, `hi`] excludes zero on the verdict's side; otherwise it contains
    zero (`widened` when it was joined with zero to say so). The interval's level is
    1 - `level`, the level Holm's step tests this comparison at (`alpha` for a family of one).

    - `decision` "fixed": with one sample per task on both sides `test` is "mcnemar_exact" and
      the interval Tango's score interval; otherwise "sign_flip_permutation": the paired
      sign-flip test on per-task differences (exact up to 16 tasks), with the task-clustered
      expanded percentile bootstrap interval made to agree with it.
    - `decision` "sequential": `test` is "mixture_sprt" and `p_value` is the larger of the
      always-valid `p_anytime` and the fixed-sample `p_fixed`, so a verdict needs both and stays
      valid however often the comparison was looked at.

    `e_value`/`p_anytime` are always given, from the `pairs_a_wins`/`pairs_b_wins` sample pairs
    won by one side only (`p_anytime` is 1 when the pairs lean the other way from `delta`).
    `b_only`/`a_only` count tasks where B's (A's) score is the higher.
    `tasks_needed` is how many paired tasks an effect of this size would need for 80% power at
    `alpha` with `fixed_test`, the exact test itself (see `_power`; under the sequential
    decision a verdict needs at least that many), or None for a zero delta or fewer than two
    tasks. `n_boot` is 0 when no bootstrap
    was drawn.
    """

    n_tasks: int
    mean_a: float
    mean_b: float
    delta: float
    lo: float
    hi: float
    level: float
    widened: bool
    verdict: Verdict
    decision: Decision
    test: str
    p_value: float
    p_adjusted: float
    family_size: int
    fixed_test: str
    p_fixed: float
    e_value: float
    p_anytime: float
    pairs_a_wins: int
    pairs_b_wins: int
    b_only: int
    a_only: int
    alpha: float
    n_boot: int
    interval_method: str
    _evidence: Evidence = field(repr=False, compare=False)

    @functools.cached_property
    def tasks_needed(self) -> int | None:
        # Computed when asked (a report asks once per comparison; a calibration run of
        # thousands of comparisons never does): the sign-flip figure is simulated.
        return self._evidence.tasks_needed(self.alpha) if self.delta != 0.0 else None

    def to_dict(self) -> dict[str, Any]:
        out = {**to_dict(self), "tasks_needed": self.tasks_needed}
        # Rounding must not move a figure across the line the verdict stands on: a p-value of
        # 0.0499999996 printed as 0.05 beside "better" would contradict it.
        for key, line in (("p_adjusted", self.alpha), ("p_value", self.level),
                          ("p_fixed", self.level), ("lo", 0.0), ("hi", 0.0)):
            out[key] = _round_keeping_side(getattr(self, key), line)
        return out


def paired_comparison(a: Outcomes, b: Outcomes, *, seed_material: str, n_boot: int = 10_000,
                      alpha: float = 0.05, decision: Decision = "fixed") -> PairedResult:
    """Compare agent B with agent A on the tasks both attempted: a family of one.

    `a` and `b` map task ids to 0/1 outcomes, one per sample; both must hold the same task ids.
    Each task scores the mean of its samples and the task is the unit (Miller 2024). The
    bootstrap, when drawn, is seeded by `seed_material`: same inputs, same result.
    """
    return paired_comparisons([(a, b, seed_material)], n_boot=n_boot, alpha=alpha,
                              decision=decision)[0]


def paired_comparisons(pairs: Sequence[tuple[Outcomes, Outcomes, str]], *, n_boot: int = 10_000,
                       alpha: float = 0.05, decision: Decision = "fixed") -> list[PairedResult]:
    """Several comparisons (a, b, seed_material) decided together: Holm's procedure over their
    deciding p-values keeps the chance of any false "better" or "worse" among them at most
    `alpha`. Results come back in the order given."""
    check_alpha(alpha)
    n_boot = _positive_int("n_boot", n_boot)
    if decision not in DECISIONS:
        raise ValueError(f"decision must be one of {DECISIONS}, got {decision!r}")
    evidence = [gather(a, b, ids=_shared_ids(a, b), seed_material=seed, n_boot=n_boot)
                for a, b, seed in pairs]
    p_values = [_deciding_p(e, decision) for e in evidence]
    adjusted = holm_adjust(p_values)
    levels = holm_levels(p_values, alpha)
    return [_result(e, decision, p, p_adj, level, alpha, len(evidence))
            for e, p, p_adj, level in zip(evidence, p_values, adjusted, levels, strict=True)]


def _anytime(e: Evidence) -> float:
    # Pairs can lean the other way from the task means when sample counts are ragged; the
    # sequential test then gives no support for the verdict's side (a larger p-value is still
    # a valid one).
    leans_same = (e.pair_b_wins - e.pair_a_wins) * e.delta > 0
    return anytime_p_value(e.pair_a_wins, e.pair_b_wins) if leans_same else 1.0


def _deciding_p(e: Evidence, decision: Decision) -> float:
    return e.p_fixed if decision == "fixed" else max(_anytime(e), e.p_fixed)


def _result(e: Evidence, decision: Decision, p: float, p_adj: float, level: float, alpha: float,
            family: int) -> PairedResult:
    reject = p_adj < alpha and e.delta != 0.0
    lo, hi, widened = e.interval(level, reject)
    verdict: Verdict = "within noise" if not reject else "better" if e.delta > 0 else "worse"
    return PairedResult(
        n_tasks=e.n, mean_a=e.mean_a, mean_b=e.mean_b, delta=e.delta, lo=lo, hi=hi,
        level=level, widened=widened, verdict=verdict, decision=decision,
        test=e.fixed_test if decision == "fixed" else SEQUENTIAL_TEST, p_value=p,
        p_adjusted=p_adj, family_size=family, fixed_test=e.fixed_test, p_fixed=e.p_fixed,
        e_value=e.e_value, p_anytime=_anytime(e),
        pairs_a_wins=e.pair_a_wins, pairs_b_wins=e.pair_b_wins, b_only=e.b_only,
        a_only=e.a_only, alpha=float(alpha),
        n_boot=0 if e.boot is None else int(e.boot.size), interval_method=e.interval_method,
        _evidence=e)


def _round_keeping_side(value: float, line: float) -> float:
    rounded = round(value, DECIMALS) + 0.0
    kept = (rounded < line) == (value < line) and (rounded > line) == (value > line)
    return rounded if kept else value


def _shared_ids(a: Outcomes, b: Outcomes) -> list[str]:
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    if only_a or only_b:
        raise ValueError(
            "a and b must cover the same tasks; "
            f"only in a: {_show(only_a)}; only in b: {_show(only_b)}"
        )
    if not a:
        raise ValueError("paired_comparison needs at least one task")
    # Sorted so that the resampled values, hence the interval, do not depend on dict order.
    return sorted(a, key=str)


def _show(ids: set[str]) -> str:
    if not ids:
        return "none"
    shown = sorted(ids, key=str)[:_MAX_IDS_SHOWN]
    more = len(ids) - len(shown)
    return ", ".join(map(repr, shown)) + (f" and {more} more" if more else "")


def _positive_int(name: str, value: int) -> int:
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a positive integer, got {value!r}") from None
    if isinstance(value, bool) or number < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return number
