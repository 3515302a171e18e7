from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.errors import BadInputError
from evaluator.swebench import id_list, read_predictions, read_rows


def test_jsonl_json_list_and_object_of_rows(tmp_path: Path) -> None:
    rows = [{"instance_id": "a__b-1"}, {"instance_id": "a__b-2"}]
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    (tmp_path / "r.json").write_text(json.dumps(rows))
    (tmp_path / "o.json").write_text(json.dumps({"a__b-1": {}, "a__b-2": {}}))
    for name in ("r.jsonl", "r.json", "o.json"):
        assert [r.instance_id for r in read_rows(tmp_path / name)] == ["a__b-1", "a__b-2"]


def test_a_bad_jsonl_line_is_a_row_of_its_own_that_says_so(tmp_path: Path) -> None:
    # Issue 31: one bad line refused the whole file, good rows included.
    (tmp_path / "r.jsonl").write_text('{"instance_id": "x"}\n{"instance_id": \n[1]\n'
                                      '{"instance_id": "y"}\n')
    rows = read_rows(tmp_path / "r.jsonl")
    assert [r.instance_id for r in rows] == ["x", "?", "?", "y"]
    assert rows[1].where.endswith("r.jsonl:2") and "not a JSON row" in rows[1].data["_unreadable"]
    assert "got list" in rows[2].data["_unreadable"]


def test_a_predictions_row_that_is_not_one_fails_alone_named_by_line_and_field(
        tmp_path: Path) -> None:
    good = {"instance_id": "a__b-1", "model_name_or_path": "m", "model_patch": "diff\n"}
    lines = [good, "{not json", {"instance_id": "a__b-2", "model_name_or_path": "m"},
             {"instance_id": "a__b-3", "model_name_or_path": "m", "model_patch": 5},
             {"instance_id": "a__b-4", "model_name_or_path": "m", "model_patch": None}]
    (tmp_path / "p.jsonl").write_text("".join((json.dumps(r) if isinstance(r, dict) else r)
                                              + "\n" for r in lines))
    refused: list[str] = []
    preds = read_predictions(tmp_path / "p.jsonl", refused)
    assert [p.instance_id for p in preds] == ["a__b-1", "a__b-4"]
    assert preds[1].patch is None  # null is SWE-bench's patch_is_None; absent is refused
    assert [r.split(": ", 1)[0].rsplit("/", 1)[1] for r in refused] == [
        "p.jsonl:2", "p.jsonl:3", "p.jsonl:4"]
    assert "field 'model_patch' is missing" in refused[1]
    assert "field 'model_patch' must be a string or null" in refused[2]
    with pytest.raises(BadInputError, match=r"p.jsonl:2: not a JSON row"):
        read_predictions(tmp_path / "p.jsonl")


def test_a_folder_without_tasks_is_not_a_task_repo(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="no tasks/ folder"):
        read_rows(tmp_path)


def test_id_lists_may_be_json_strings() -> None:
    assert id_list({"FAIL_TO_PASS": '["a", "b"]'}, "FAIL_TO_PASS") == ["a", "b"]
    assert id_list({}, "PASS_TO_PASS") == []
    with pytest.raises(ValueError, match="JSON list"):
        id_list({"FAIL_TO_PASS": "a, b"}, "FAIL_TO_PASS")
