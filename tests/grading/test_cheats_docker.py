"""The cheat battery: patches that fix nothing, against two task layouts, on the real engine.

None may count as resolved without a flag: its result, decided by the one result rule from its
grade and the policy's findings, is never `resolved`; each grade is also one the family may
get. Honest gold still resolves unflagged. Every grade of a layout runs once, a few at a time,
and the tests read them. CI grades each family in one layout and gold in both; every family in
both layouts: EVAL_TEST_BATTERY=full (tests/grading/battery.py)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from evaluator.grading import RESOLVED, TAMPERED, UNRESOLVED
from tests.grading.battery import FULL, LAYOUTS, PARALLEL, cases, ci_layouts
from tests.grading.cheats import CHEATS, NEW_CHEATS

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gold_resolves_unflagged_in_each_layout(batteries, layout: str) -> None:
    gold = batteries(layout)["gold"]
    assert gold.outcome.outcome == RESOLVED and gold.status == "resolved", gold.outcome.detail
    assert gold.outcome.evidence == () and gold.outcome.nonce


@pytest.mark.parametrize("layout", LAYOUTS)
def test_empty_patch_is_unresolved_not_tampered(batteries, layout: str) -> None:
    empty = batteries(layout)["empty"]
    assert empty.outcome.outcome == UNRESOLVED, empty.outcome.detail


@pytest.mark.parametrize(("layout", "cheat"), cases(CHEATS))
def test_cheat_does_not_count_as_resolved(layouts, batteries, layout: str, cheat: str) -> None:
    lay = layouts(layout)[0]
    graded, allowed = batteries(layout)[cheat], CHEATS[cheat](lay)[1]
    out = graded.outcome
    assert graded.status != "resolved", f"{cheat} resolved unflagged: {out.detail}"
    assert out.outcome in allowed, f"{out.outcome}: {out.detail}"


def test_the_battery_has_twenty_new_families_or_more() -> None:
    assert len(NEW_CHEATS) >= 20 and NEW_CHEATS <= set(CHEATS)


def test_ci_grades_every_family_in_one_layout_and_shares_them_out() -> None:
    where = ci_layouts(CHEATS)
    assert set(where) == set(CHEATS) and set(where.values()) == set(LAYOUTS)
    per = [sum(1 for v in where.values() if v == lay) for lay in LAYOUTS]
    assert max(per) - min(per) <= 1
    assert len(cases(CHEATS)) == len(CHEATS) * (len(LAYOUTS) if FULL else 1)


@pytest.mark.parametrize(("layout", "cheat"), cases(["gc_config_hook"]))
def test_regrade_draws_a_new_nonce_and_agrees(grader, layouts, batteries, layout: str,
                                              cheat: str) -> None:
    lay, spec, hidden = layouts(layout)
    first = batteries(layout)[cheat].outcome
    second = grader.grade(spec, CHEATS[cheat](lay)[0].encode(), hidden)
    assert first.nonce != second.nonce
    assert first.outcome == second.outcome == TAMPERED


@pytest.mark.parametrize("layout", LAYOUTS if FULL else ["shop"])
def test_pytest_log_results_are_guarded_too(grader, layouts, layout: str) -> None:
    lay, spec, hidden = layouts(layout)
    log_spec = replace(spec, results="pytest-log",
                       test_command="python3 -m pytest -rA -p no:cacheprovider tests")
    names = ("gold", "atexit_rewrite", "guard_selection_flip", "rerun_forged")
    patches = [lay.gold if n == "gold" else CHEATS[n](lay)[0] for n in names]
    with ThreadPoolExecutor(PARALLEL) as pool:
        outs = list(pool.map(lambda p: grader.grade(log_spec, p.encode(), hidden), patches))
    assert outs[0].outcome == RESOLVED, outs[0].detail
    for name, out in zip(names[1:], outs[1:], strict=True):
        assert not out.resolved and out.outcome in (TAMPERED, UNRESOLVED), f"{name}: {out.detail}"
