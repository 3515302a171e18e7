import json
import math

import pytest

from evaluator.stats import paired_comparison, tasks_needed

# B solves 30 of 40 tasks that A fails; both fail the other 10.
WEAK = {f"t{i}": [0, 0] for i in range(40)}
STRONG = {f"t{i}": [1, 1] if i < 30 else [0, 0] for i in range(40)}


def test_verdict_follows_the_interval() -> None:
    better = paired_comparison(WEAK, STRONG, seed_material="v")
    worse = paired_comparison(STRONG, WEAK, seed_material="v")
    assert better.verdict == "better" and better.lo > 0
    assert worse.verdict == "worse" and worse.hi < 0
    assert (worse.lo, worse.hi) == pytest.approx((-better.hi, -better.lo), abs=0.05)


def test_identical_agents_are_within_noise() -> None:
    r = paired_comparison(STRONG, STRONG, seed_material="v")
    assert (r.verdict, r.delta, r.lo, r.hi, r.p_value) == ("within noise", 0.0, 0.0, 0.0, 1.0)
    assert (r.a_only, r.b_only, r.tasks_needed) == (0, 0, None)


def test_one_task_tells_nothing() -> None:
    r = paired_comparison({"t": [0]}, {"t": [1]}, seed_material="v")
    assert (r.verdict, r.tasks_needed, r.p_value) == ("within noise", None, 1)
    assert r.lo < -0.5 and r.hi == 1.0  # the score interval, still reaching far below zero
    r = paired_comparison({"t": [0, 1]}, {"t": [1, 1]}, seed_material="v")
    assert (r.lo, r.hi, r.verdict, r.p_value, r.n_boot) == (-1, 1, "within noise", 1, 0)


def test_tasks_needed_formula() -> None:
    z = 1.959963984540054 + 0.8416212335729143  # z_{0.975} + z_{0.80}
    assert tasks_needed(0.1, 0.5) == math.ceil((z * 0.5 / 0.1) ** 2) == 197
    assert tasks_needed(-0.1, 0.5) == 197
    assert (tasks_needed(0.1, 0.5, alpha=0.01) or 0) > 197
    assert tasks_needed(0.0, 0.5) is None
    assert tasks_needed(0.2, 0.0) == 2  # no noise: two tasks already show the spread is nil


def test_to_dict_is_json_able_and_rounded() -> None:
    d = paired_comparison(WEAK, STRONG, seed_material="v").to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["delta"] == 0.75 and d["verdict"] == "better" and d["n_boot"] == 10_000
    assert all(round(v, 6) == v for v in d.values() if isinstance(v, float))
