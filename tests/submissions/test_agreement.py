"""The agreement table over a real store: a submission's published outcomes beside the grades
of its own predictions, one instance per cause class, and the rows that cannot be compared."""

from __future__ import annotations

from pathlib import Path

from evaluator.submissions import (
    AGREE,
    DISAGREE,
    ENVIRONMENT,
    INTEGRITY,
    RUNNER,
    TEST_LISTS,
    THEIRS,
    UNPUBLISHED,
    UNVERIFIED,
    Row,
    Table,
    require_agreement,
    table_lines,
    write_published,
)
from evaluator.swebench import read_submission
from tests.submissions.published import EXTRA, F2P, P2P, Folder, Published, report
from tests.submissions.world import BROKEN, OK, World, patch

ZERO, HIDDEN_ZERO = P2P


def _row(t: Table, iid: str) -> Row:
    return next(r for r in t.rows if r.instance_id == iid)


def test_a_clean_agreement(table: Table) -> None:
    r = _row(table, "acme__calc-1")
    assert (r.published, r.ours, r.state, r.tests_agree, r.cause) == (True, "resolved", AGREE,
                                                                       True, "")


def test_a_published_resolve_our_clean_run_does_not_confirm_is_their_evaluation(table: Table
                                                                               ) -> None:
    r = _row(table, "acme__calc-2")
    assert (r.published, r.ours, r.state, r.cause) == (True, "failed", DISAGREE, THEIRS)
    assert "clean run" in r.why and "no output of theirs" in r.why


def test_our_run_with_no_report_is_runner_reading(table: Table) -> None:
    r = _row(table, "acme__calc-3")
    assert (r.state, r.cause) == (DISAGREE, RUNNER) and "no pytest totals line" in r.why


def test_their_report_contradicting_their_own_output_is_runner_reading(table: Table) -> None:
    r = _row(table, "acme__calc-4")
    assert (r.published, r.ours, r.state, r.cause) == (False, "resolved", DISAGREE, RUNNER)
    assert "one output, read two ways" in r.why
    [d] = r.tests
    assert (d.test, d.published, d.ours, d.their_reading) == (ZERO, False, "passed", "passed")
    assert "PASSED tests/test_visible.py::test_zero" in d.their_lines


def test_a_module_their_run_could_not_import_is_environment(table: Table) -> None:
    r = _row(table, "acme__calc-5")
    assert (r.state, r.cause) == (DISAGREE, ENVIRONMENT)
    assert "their run cannot import a module (ModuleNotFoundError" in r.why
    [d] = r.tests
    assert "FAILED tests/test_visible.py::test_zero" in d.their_lines and d.our_lines


def test_a_test_only_their_row_requires_is_required_test_lists(table: Table) -> None:
    r = _row(table, "acme__calc-6")
    assert (r.state, r.cause) == (DISAGREE, TEST_LISTS) and EXTRA in r.why
    assert [(d.test, d.ours) for d in r.tests] == [(EXTRA, "not required")]


def test_a_tampered_grade_is_our_integrity_checks(table: Table) -> None:
    r = _row(table, "acme__calc-7")
    assert (r.published, r.ours, r.state, r.cause) == (True, "policy", DISAGREE, INTEGRITY)
    assert "canary" in r.why


def test_a_task_our_environment_cannot_validate_is_not_re_verified(table: Table) -> None:
    r = _row(table, BROKEN)
    assert (r.ours, r.state, r.cause) == ("not graded: broken-gold in our gold gate",
                                          UNVERIFIED, ENVIRONMENT)
    assert "the environment skips 1 required test(s) with the gold patch: " + ZERO in r.why


def test_what_is_not_published_or_not_ours_is_said(table: Table) -> None:
    r = _row(table, "acme__calc-9")
    assert (r.published, r.ours, r.state) == (None, "resolved", UNPUBLISHED)
    assert any("no_logs" in n for n in r.notes)
    r = _row(table, "acme__other-1")
    assert (r.ours, r.state, r.task_id) == ("not in the set", UNVERIFIED, None)


def test_counts_causes_and_the_text(table: Table) -> None:
    c = table.counts
    assert (c["agree"], c["disagree"], c["unverified"], c["unpublished"]) == (1, 6, 2, 1)
    assert table.causes == {ENVIRONMENT: 1, INTEGRITY: 1, RUNNER: 2, TEST_LISTS: 1, THEIRS: 1}
    text = "\n".join(table_lines(table))
    assert "submission 20250301_agent_model (verified, model org/model) on sw" in text
    assert "theirs | PASSED tests/test_visible.py::test_zero" in text
    code, said = require_agreement(table)
    assert code == 1 and "6 instance(s) of 20250301_agent_model differ" in said


def test_an_agreeing_submission_passes_the_check_and_a_reimport_changes_nothing(
        world: World, table: Table) -> None:
    folder = Folder("lite", "20250302_other", "other", [
        Published("acme__calc-1", patch("fix"), report("acme__calc-1", resolved=True, f2p=OK)),
        Published("acme__calc-2", patch("docs"), report("acme__calc-2", resolved=False,
                                                        f2p={"success": [], "failure": [F2P]})),
    ])
    record = world.submit(folder)
    t = world.table(record)
    assert [r.state for r in t.rows] == [AGREE, AGREE] and require_agreement(t)[0] == 0
    sub = read_submission(world.root / "experiments" / "evaluation" / "lite" / "20250302_other")
    again = write_published(world.store, sub.record("sw", {"acme__calc-1": "acme__calc-1",
                                                            "acme__calc-2": "acme__calc-2"},
                                                     world.store.put_blob))
    assert (again.key, again.imported_at) == (record.key, record.imported_at)


def test_a_submission_not_graded_yet_says_so(world: World, tmp_path: Path) -> None:
    folder = Folder("test", "20250303_ungraded", "u", [
        Published("acme__calc-1", patch("fix-u"), report("acme__calc-1", resolved=True, f2p=OK))])
    t = world.table(world.submit(folder, grade=False))
    [r] = t.rows
    assert (r.ours, r.state) == ("not graded yet", UNVERIFIED)
    assert require_agreement(t)[0] == 1
