from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.errors import BadInputError
from evaluator.swebench import id_list, read_rows


def test_jsonl_json_list_and_object_of_rows(tmp_path: Path) -> None:
    rows = [{"instance_id": "a__b-1"}, {"instance_id": "a__b-2"}]
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    (tmp_path / "r.json").write_text(json.dumps(rows))
    (tmp_path / "o.json").write_text(json.dumps({"a__b-1": {}, "a__b-2": {}}))
    for name in ("r.jsonl", "r.json", "o.json"):
        assert [r.instance_id for r in read_rows(tmp_path / name)] == ["a__b-1", "a__b-2"]


def test_a_bad_jsonl_line_is_named(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text('{"instance_id": "x"}\n{"instance_id": \n')
    with pytest.raises(BadInputError, match=r"r.jsonl:2: not a JSON row"):
        read_rows(tmp_path / "r.jsonl")


def test_a_folder_without_tasks_is_not_a_task_repo(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="no tasks/ folder"):
        read_rows(tmp_path)


def test_id_lists_may_be_json_strings() -> None:
    assert id_list({"FAIL_TO_PASS": '["a", "b"]'}, "FAIL_TO_PASS") == ["a", "b"]
    assert id_list({}, "PASS_TO_PASS") == []
    with pytest.raises(ValueError, match="JSON list"):
        id_list({"FAIL_TO_PASS": "a, b"}, "FAIL_TO_PASS")
