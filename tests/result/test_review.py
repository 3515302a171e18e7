"""A person's decisions on flagged resolves are data the report reads: the rule says
`flagged`, the reviews file says accept or reject, nothing stored is rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.errors import BadInputError
from evaluator.grading import RESOLVED
from evaluator.reports import leaderboard_rows, report_summary
from evaluator.result import FLAGGED, POLICY, Findings, Reviews, decide
from tests.records import grade_record
from tests.reports._world import World


def test_a_resolve_with_a_flag_is_flagged_not_resolved() -> None:
    from evaluator.policy import Finding

    flag = Findings((), (Finding("outside_allow_list", "p.py", 3, "os.environ"),))
    assert decide(grade_record(RESOLVED), flag) == FLAGGED
    env = grade_record(RESOLVED).model_copy(update={"flags": ["environment-sensitive: t"]})
    assert decide(env, Findings()) == FLAGGED


def test_the_reviews_file_is_checked_entry_by_entry(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    assert Reviews.load(path).by_grade == {}
    path.write_text("- grade: abc\n  decision: maybe\n  by: x\n")
    with pytest.raises(BadInputError, match="entry 1: field 'decision'"):
        Reviews.load(path)
    path.write_text("- grade: abc\n  decision: accept\n")
    with pytest.raises(BadInputError, match="field 'by'"):
        Reviews.load(path)
    path.write_text("- {grade: abc, decision: accept, by: x}\n- {grade: abc, decision: reject, by: y}\n")
    with pytest.raises(BadInputError, match="decided twice"):
        Reviews.load(path)


def test_a_decision_counts_a_flagged_result_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_text("- {grade: g1, decision: accept, by: ada}\n- {grade: g2, decision: reject, by: ada}\n")
    r = Reviews.load(path)
    assert r.counted(FLAGGED, "g1")[0] == RESOLVED and r.counted(FLAGGED, "g2")[0] == POLICY
    assert r.counted(FLAGGED, "g3") == (FLAGGED, None)
    assert r.counted("failed", "g1") == ("failed", None) and r.digest


def test_the_headline_counts_unflagged_resolves_and_shows_the_flagged_beside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_REVIEWS", str(tmp_path / "reviews"))
    w = World(tmp_path, ("t1", "t2", "t3"), agents=("base",))
    w.outcome("base", "t1", 0, "resolved")
    w.outcome("base", "t2", 0, "flagged", flags=[{"reason": "environment_sensitive",
                                                   "text": "environment-sensitive: t"}])
    w.outcome("base", "t3", 0, "flagged")
    (row,) = leaderboard_rows("mini", **w.kwargs)
    assert (row["resolved"], row["flagged"], row["resolve_rate"]) == (1, 2, pytest.approx(1 / 3))
    summary = report_summary("mini", record_looks=False, **w.kwargs)
    assert [f["task_id"] for f in summary["flagged"]] == ["t2", "t3"]
    assert summary["flagged"][0]["flags"] == ["environment_sensitive: environment-sensitive: t"]
    assert any("awaiting review" in n for n in summary["notes"])
    grade = summary["flagged"][0]["grade"]
    (tmp_path / "reviews").mkdir()
    (tmp_path / "reviews" / "mini.yaml").write_text(
        f"- {{grade: {grade}, decision: accept, by: ada, why: the override is documented}}\n")
    (row,) = leaderboard_rows("mini", **w.kwargs)
    assert (row["resolved"], row["flagged"]) == (2, 1)
    summary = report_summary("mini", record_looks=False, **w.kwargs)
    assert summary["reviews"]["accepted"] == 1 and summary["reviews"]["blake3"]
