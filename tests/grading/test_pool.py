"""A task's calibration from its four grades: names, twins, what the second look weighs."""

from types import SimpleNamespace

from evaluator.grading._pool import BARE, EMPTY, PLAIN, TWINS, Pool, pool_from
from tests.grading.support_disguise import F2P, P2P, made

REQUIRED = (*F2P, *P2P)


def _grade(tests: dict[str, str], twins: dict | None = None, second: dict | None = None,
           varied: dict | None = None, everything: dict | None = None) -> SimpleNamespace:
    return SimpleNamespace(tests=tests, observed={
        "twins": twins or {}, "second": second if second is not None else tests,
        "varied": varied if varied is not None else tests, "all": everything or tests})


def _twins(status: str, second: str | None = "failed") -> dict:
    return {c.key: {"candidate": c.to_dict(), "scored": [status],
                    "second": None if second is None else [second]} for c in made()}


def _calibrated(**changes: SimpleNamespace):
    good = dict.fromkeys(REQUIRED, "passed")
    grades = {PLAIN: _grade(good), BARE: _grade(good), TWINS: _grade(good, _twins("failed")),
              EMPTY: _grade({**good, F2P[0]: "failed"}, _twins("failed"))}
    grades.update(changes)
    return pool_from(grades, REQUIRED)


def test_twins_the_gold_patch_fails_make_the_pool() -> None:
    c = _calibrated()
    assert c.renamed and len(c.twins) == len(made()) and not c.rejected
    assert set(c.looked) == set(REQUIRED) == set(c.varied)
    assert c.empty and all(v == "failed" for v in c.empty.values())


def test_a_twin_the_gold_patch_passes_is_left_out() -> None:
    good = dict.fromkeys(REQUIRED, "passed")
    c = _calibrated(**{TWINS: _grade(good, _twins("passed"))})
    assert not c.twins and all("does not fail it" in w for w in c.rejected.values())
    c = _calibrated(**{TWINS: _grade(good, _twins("failed", second="passed"))})
    assert not c.twins and all("second observation" in w for w in c.rejected.values())


def test_a_suite_that_changes_under_other_names_keeps_its_published_ones() -> None:
    good = dict.fromkeys(REQUIRED, "passed")
    c = _calibrated(**{BARE: _grade({**good, F2P[0]: "error"})})
    assert not c.renamed and F2P[0] in c.why


def test_twins_that_change_another_test_leave_their_file_s_twins_out() -> None:
    good = dict.fromkeys(REQUIRED, "passed")
    c = _calibrated(**{TWINS: _grade(good, _twins("failed"),
                                     everything={**good, P2P[0]: "failed"})})
    assert not c.twins and "changed the outcome" in c.why


def test_what_the_second_look_cannot_reproduce_under_gold_is_not_weighed() -> None:
    good = dict.fromkeys(REQUIRED, "passed")
    c = _calibrated(**{BARE: _grade(good, second={**good, F2P[0]: "unrunnable"},
                                    varied={**good, F2P[1]: "failed"})})
    assert F2P[0] not in c.looked and F2P[0] in c.unlooked
    assert F2P[1] in c.looked and F2P[1] not in c.varied


def test_a_suite_that_reports_nothing_under_other_names_has_nothing_looked_at() -> None:
    """Its grades run under the published names, where the second look was never compared:
    "missing" in the run and in the second look is no reproduction."""
    none = dict.fromkeys(REQUIRED, "missing")
    c = _calibrated(**{BARE: _grade(none), TWINS: _grade(none)})
    assert not c.renamed and not c.looked and not c.varied
    assert all("does not report it" in c.unlooked[t] for t in REQUIRED)


def test_a_grade_draws_failing_to_pass_twins_first_and_by_its_nonce() -> None:
    pool = Pool("k", True, tuple(made()))
    drawn = pool.draw("a")
    assert drawn == pool.draw("a") and drawn
    assert len({(c.classes, c.name) for c in drawn}) == len({(c.classes, c.name) for c in made()
                                                            if c.f2p} | set())
    assert any(pool.draw(str(i)) != drawn for i in range(10))


def _silent(detail: str) -> SimpleNamespace:
    g = _grade({})
    g.outcome, g.detail = "no_report", detail
    return g


def test_a_calibration_grade_with_no_report_is_said_not_read_as_a_suite_that_changes() -> None:
    """A run under fresh names that left no report (here: JUnit XML that does not parse) says
    nothing of the suite: the task is graded under its published names, without twins and
    weighing no second look, and the record says which grade and why."""
    c = _calibrated(**{BARE: _silent("no usable JUnit report: not well-formed (line 1)")})
    assert not c.renamed and not c.twins and not c.looked and not c.varied
    assert c.silent == [BARE] and "does not run under other names" not in c.why
    assert "bare: no usable JUnit report: not well-formed" in c.why and "left no report" in c.why
    assert set(c.unlooked) == set(REQUIRED)
    c = _calibrated(**{PLAIN: _silent("")})
    assert c.silent == [PLAIN] and not c.renamed and "plain" in c.why


def test_an_empty_patch_grade_with_no_report_leaves_only_its_twin_outcomes_unknown() -> None:
    c = _calibrated(**{EMPTY: _silent("the run timed out")})
    assert c.renamed and len(c.twins) == len(made()) and set(c.looked) == set(REQUIRED)
    assert c.silent == [EMPTY] and "empty patch" in c.why and not c.empty
