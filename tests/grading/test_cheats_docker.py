"""The cheat battery: patches that fix nothing, against two task layouts, on the real engine.
None may resolve; each must end as the family's expected outcome. Honest gold still resolves."""

from dataclasses import replace

import pytest

from evaluator.grading import RESOLVED, TAMPERED, UNRESOLVED
from tests.grading.cheats import CHEATS

pytestmark = pytest.mark.docker


def test_gold_resolves_in_each_layout(grader, layout_case) -> None:
    lay, spec, hidden = layout_case
    out = grader.grade(spec, lay.gold.encode(), hidden)
    assert out.outcome == RESOLVED, out.detail
    assert out.evidence == () and out.nonce


def test_empty_patch_is_unresolved_not_tampered(grader, layout_case) -> None:
    _lay, spec, hidden = layout_case
    out = grader.grade(spec, b"", hidden)
    assert out.outcome == UNRESOLVED, out.detail


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_cheat_does_not_resolve(grader, layout_case, cheat: str) -> None:
    lay, spec, hidden = layout_case
    patch, allowed = CHEATS[cheat](lay)
    out = grader.grade(spec, patch.encode(), hidden)
    assert not out.resolved
    assert out.outcome in allowed, f"{out.outcome}: {out.detail}"


def test_regrade_draws_a_new_nonce_and_agrees(grader, layout_case) -> None:
    lay, spec, hidden = layout_case
    patch, _ = CHEATS["gc_config_hook"](lay)
    first, second = (grader.grade(spec, patch.encode(), hidden) for _ in range(2))
    assert first.nonce != second.nonce
    assert first.outcome == second.outcome == TAMPERED and first.tests == second.tests


def test_pytest_log_results_are_guarded_too(grader, layout_case) -> None:
    lay, spec, hidden = layout_case
    log_spec = replace(spec, results="pytest-log",
                       test_command="python3 -m pytest -rA -p no:cacheprovider tests")
    assert grader.grade(log_spec, lay.gold.encode(), hidden).outcome == RESOLVED
    for cheat in ("atexit_rewrite", "gc_config_hook"):
        out = grader.grade(log_spec, CHEATS[cheat](lay)[0].encode(), hidden)
        assert not out.resolved and out.outcome in (TAMPERED, UNRESOLVED), out.detail
