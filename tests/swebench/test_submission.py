"""Submission folders as SWE-bench's experiments repository publishes them, read: predictions
in either file, results.json of both harness generations, per-instance reports of each shape,
missing logs, files that contradict each other, and files that cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.errors import BadInputError
from evaluator.swebench import read_submission
from tests.submissions.published import (
    F2P,
    P2P,
    Folder,
    Published,
    as_test_output,
    pytest_output,
    report,
)

OK = {"success": [F2P], "failure": []}
NOT = {"success": [], "failure": [F2P]}


@pytest.fixture(scope="module")
def passing(tmp_path_factory: pytest.TempPathFactory) -> str:
    return as_test_output(pytest_output(tmp_path_factory.mktemp("repo")))


def test_a_verified_submission_of_the_docker_harness(tmp_path: Path, passing: str) -> None:
    folder = Folder("verified", "20240620_agent_model", "org/model", [
        Published("acme__calc-1", "diff a", report("acme__calc-1", resolved=True, f2p=OK),
                  passing),
        Published("acme__calc-2", "diff b", report("acme__calc-2", resolved=False, f2p=NOT)),
        Published("acme__calc-3", None),
        Published("acme__calc-4", "diff d"),
    ], results={"resolved": ["acme__calc-1"], "no_generation": ["acme__calc-3"],
                "no_logs": ["acme__calc-4"]}).write(tmp_path)
    sub = read_submission(folder)
    assert (sub.name, sub.split, sub.models) == ("20240620_agent_model", "verified", ["org/model"])
    assert [p.subject for p in sub.predictions] == ["20240620_agent_model"] * 4
    e = sub.entries
    assert (e["acme__calc-1"].resolved, e["acme__calc-1"].source) == (True, "results/results.json")
    assert e["acme__calc-1"].tests is not None and e["acme__calc-1"].passed(F2P) is True
    assert e["acme__calc-1"].passed(P2P[0]) is True and e["acme__calc-1"].applied is True
    assert e["acme__calc-2"].resolved is False and e["acme__calc-2"].passed(F2P) is False
    assert e["acme__calc-3"].resolved is False and "no_generation" in e["acme__calc-3"].notes[0]
    # Listed in no_logs: their run left nothing, so nothing is published (never "unresolved").
    assert e["acme__calc-4"].resolved is None and "no_logs" in e["acme__calc-4"].notes[0]
    assert sub.outputs["acme__calc-1"][0] == "logs/acme__calc-1/test_output.txt"
    assert b"PASSED tests/test_hidden.py::test_add" in sub.outputs["acme__calc-1"][1]
    assert "acme__calc-2" not in sub.outputs  # its logs hold no output: it stays missing
    assert "report.json (docker harness)" in sub.shape


def test_a_lite_submission_with_preds_json_and_no_results_file(tmp_path: Path) -> None:
    folder = Folder("lite", "20240402_rag_model", "rag", [
        Published("acme__calc-1", "diff a", report("acme__calc-1", resolved=True, f2p=OK,
                                                   generation="5")),
        Published("acme__calc-2", "diff b"),  # no logs at all
        Published("acme__calc-3", "diff c", report("acme__calc-3", resolved=False,
                                                   applied=False)),
    ], preds="preds.json").write(tmp_path)
    sub = read_submission(folder)
    assert sub.split == "lite" and sub.shape[0] == "preds.json"
    e = sub.entries
    assert (e["acme__calc-1"].resolved, e["acme__calc-1"].source) == (
        True, "logs/acme__calc-1/report.json")
    assert e["acme__calc-1"].harness == "report.json (swebench 5: infra_failure)"
    assert e["acme__calc-2"].resolved is None and e["acme__calc-2"].tests is None
    assert e["acme__calc-3"].resolved is False and e["acme__calc-3"].applied is False
    assert e["acme__calc-3"].tests is None
    assert e["acme__calc-3"].harness == "report.json (no tests_status: no test ran)"


def test_a_2024_submission_of_the_older_harness_with_one_log_per_instance(tmp_path: Path,
                                                                          passing: str) -> None:
    folder = Folder("lite", "20231010_rag_old", "old-model", [
        Published("acme__calc-1", "diff a", flat_log=passing),
        Published("acme__calc-2", "diff b", flat_log="Test Script: pytest\nOutput:\n"),
        Published("acme__calc-3", "diff c"),
    ], preds="preds.json[]", results={
        "no_generation": [], "generated": ["acme__calc-1", "acme__calc-2", "acme__calc-3"],
        "with_logs": ["acme__calc-1", "acme__calc-2"], "install_fail": [], "reset_failed": [],
        "no_apply": [], "applied": ["acme__calc-1", "acme__calc-2"],
        "test_errored": [], "test_timeout": ["acme__calc-2"], "resolved": ["acme__calc-1"]}
    ).write(tmp_path)
    sub = read_submission(folder)
    e = sub.entries
    assert e["acme__calc-1"].resolved is True and e["acme__calc-2"].resolved is False
    assert e["acme__calc-3"].resolved is None  # generated, in no list of an evaluated run
    assert sub.outputs["acme__calc-1"][0] == "logs/acme__calc-1.old-model.eval.log"
    assert any("2023-24 harness" in s for s in sub.shape)


def test_files_that_contradict_each_other_are_said(tmp_path: Path) -> None:
    folder = Folder("verified", "20250101_contra", "m", [
        Published("acme__calc-1", "diff a", report("acme__calc-1", resolved=False, f2p=NOT)),
        Published("acme__calc-2", "diff b", report("acme__calc-2", resolved=True, f2p=NOT)),
    ], results={"resolved": ["acme__calc-1"], "no_generation": [], "no_logs": []}
    ).write(tmp_path)
    e = read_submission(folder).entries
    assert e["acme__calc-1"].resolved is True  # what the leaderboard counts
    assert "report.json says not resolved" in e["acme__calc-1"].conflicts[0]
    assert e["acme__calc-2"].conflicts == [
        "results/results.json says not resolved, its report.json says resolved",
        "its report.json says resolved yet lists failing required tests"]


def test_an_unreadable_report_fails_only_its_instance(tmp_path: Path) -> None:
    folder = Folder("verified", "20250101_bad", "m", [
        Published("acme__calc-1", "diff a", report("acme__calc-1", resolved=True, f2p=OK)),
        Published("acme__calc-2", "diff b"),
    ], extra={"logs/acme__calc-2/report.json": "{not json"}).write(tmp_path)
    e = read_submission(folder).entries
    assert e["acme__calc-1"].resolved is True
    assert e["acme__calc-2"].resolved is None and "unreadable" in e["acme__calc-2"].notes[0]


def test_a_folder_without_predictions_or_with_a_bad_results_file_is_refused(tmp_path: Path
                                                                           ) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(BadInputError, match="all_preds.jsonl, preds.json"):
        read_submission(tmp_path / "empty")
    folder = Folder("test", "20250101_x", "m", [Published("acme__calc-1", "d")],
                    extra={"results/results.json": json.dumps({"resolved": "acme__calc-1"})}
                    ).write(tmp_path)
    with pytest.raises(BadInputError, match="results.json: must be an object of instance-id"):
        read_submission(folder)
    with pytest.raises(BadInputError, match="not a folder"):
        read_submission(tmp_path / "nowhere")


def test_the_name_and_split_can_be_given(tmp_path: Path) -> None:
    folder = Folder("somewhere", "x", "m", [Published("acme__calc-1", "d")]).write(tmp_path)
    sub = read_submission(folder, name="mine", split="verified")
    assert (sub.name, sub.split) == ("mine", "verified")
    assert read_submission(folder).split == ""  # its parent names no split
