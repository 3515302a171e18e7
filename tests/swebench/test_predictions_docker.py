"""Predictions graded through the shared grade keys and store, shown as subjects, exported as
SWE-bench writes them, and the round trip: export, import under a new name, same verdicts and
the same resolved ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.swebench.support import SweProject, imported, light_gate, make_project

pytestmark = pytest.mark.docker


def _predictions(p: SweProject, path: Path, empty_too: bool = True) -> Path:
    rows = [{"instance_id": iid, "model_name_or_path": "gold-model", "model_patch": r["patch"]}
            for iid, r in sorted(p.rows.items())]
    if empty_too:
        rows += [{"instance_id": iid, "model_name_or_path": "org/empty", "model_patch": None}
                 for iid in sorted(p.rows)]
    rows.append({"instance_id": "acme__nope-1", "model_name_or_path": "gold-model",
                 "model_patch": ""})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _verdicts(out: str) -> dict[str, str]:
    return {line.split()[0]: line.split()[1] for line in out.splitlines()
            if line.startswith("acme__calc-")}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, docker_client: Any, base_image: str
           ) -> SweProject:
    """One project for the module: imported, locked, gated and its predictions graded (the
    tests only read it or add sets of their own)."""
    swe_project = make_project(tmp_path_factory.mktemp("swe"))
    imported(swe_project)
    gold = swe_project.doit("gold:sw")
    assert _verdicts(gold.stdout)["acme__calc-pytest"] == "valid", gold.stdout
    preds = _predictions(swe_project, swe_project.root / "preds.jsonl")
    out = swe_project.evaluator("predictions", "grade", str(preds), "--set", "sw")
    assert out.returncode == 0, out.stdout + out.stderr
    return swe_project


def test_predictions_are_graded_once_and_a_rerun_is_a_no_op(graded: SweProject) -> None:
    again = graded.evaluator("predictions", "grade", "preds.jsonl", "--set", "sw")
    assert again.returncode == 0 and ", 0 to grade" in again.stdout, again.stdout
    assert "'acme__nope-1' is not in task set 'sw'" in again.stdout


def test_each_model_is_a_subject_on_the_leaderboard_and_in_the_gate(graded: SweProject) -> None:
    report = graded.evaluator("report", "--set", "sw", "--reports", str(graded.root / "out"))
    assert report.returncode == 0, report.stdout + report.stderr
    board = json.loads((graded.root / "out" / "sw" / "summary.json").read_text())["leaderboard"]
    rates = {r["agent"]: r["resolve_rate"] for r in board}
    assert rates["gold-model"] == 1.0 and rates["org/empty"] == 0.0
    gate = graded.evaluator("gate", "--set", "sw", "--candidate", "org/empty",
                            "--baseline", "gold-model")
    assert "org/empty vs gold-model" in gate.stdout, gate.stdout + gate.stderr


def test_export_then_import_gives_the_same_verdicts_and_resolved_ids(graded: SweProject) -> None:
    out = graded.root / "exp"
    exp = graded.evaluator("export", "swebench", "--set", "sw", "--agent", "gold-model",
                           "--out", str(out))
    assert exp.returncode == 0, exp.stdout + exp.stderr
    first = json.loads((out / "summary.json").read_text())
    report = json.loads((out / "report.json").read_text())
    assert report["acme__calc-pytest"]["tests_status"]["FAIL_TO_PASS"]["failure"] == []
    back = graded.evaluator("import", "swebench", str(out / "instances.jsonl"), "--set", "sw2")
    assert back.returncode == 0, back.stdout
    light_gate(graded, "sw2")  # as `sw` was gated
    assert graded.doit("lock:sw2").returncode == 0
    assert _verdicts(graded.doit("gold:sw2").stdout) == _verdicts(graded.doit("gold:sw").stdout)
    graded.evaluator("predictions", "grade", str(out / "predictions.jsonl"), "--set", "sw2")
    graded.evaluator("export", "swebench", "--set", "sw2", "--agent", "gold-model", "--out",
                     str(graded.root / "exp2"), "--no-instances")
    second = json.loads((graded.root / "exp2" / "summary.json").read_text())
    assert second["resolved_ids"] == first["resolved_ids"]
    assert "acme__calc-pytest" in first["resolved_ids"]


def test_a_bad_predictions_row_fails_alone_and_no_patch_is_never_an_empty_one(
        graded: SweProject) -> None:
    """Issue 31: one bad line refused the whole file; a row without `model_patch` was graded
    as an empty patch."""
    good = [{"instance_id": iid, "model_name_or_path": "model-c", "model_patch": r["patch"]}
            for iid, r in sorted(graded.rows.items())]
    no_patch = {"instance_id": good[0]["instance_id"], "model_name_or_path": "forgot-patch"}
    lines = [json.dumps(good[0]), "{truncated", json.dumps(no_patch),
             *(json.dumps(g) for g in good[1:])]
    (graded.root / "mixed.jsonl").write_text("\n".join(lines) + "\n")
    out = graded.evaluator("predictions", "grade", "mixed.jsonl", "--set", "sw")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "mixed.jsonl:2: not a JSON row" in out.stdout
    assert "mixed.jsonl:3: field 'model_patch' is missing" in out.stdout
    assert f"{len(good)} prediction(s) of 1 subject(s)" in out.stdout  # the good rows, graded
    report = graded.evaluator("report", "--set", "sw", "--reports", str(graded.root / "out3"))
    board = json.loads((graded.root / "out3" / "sw" / "summary.json").read_text())["leaderboard"]
    rates = {r["agent"]: r["resolve_rate"] for r in board}
    assert rates["model-c"] == 1.0 and "forgot-patch" not in rates, report.stdout
