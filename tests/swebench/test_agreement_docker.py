"""The official harness (swebench 5.x, its own virtualenv) and ours on the same rows, images and
patches: one image per upstream runner family (tests/swebench/suites.py), two rows each, each
graded with its gold patch, the empty patch and a no-op patch. Both must agree on every one:
resolved or not, and test for test on which required tests fail."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.swebench import official
from tests.swebench.suites import FAMILIES, build, build_image
from tests.swebench.support import REPO, SweProject

pytestmark = pytest.mark.docker
KINDS = ("gold", "empty", "noop")
# A patch that applies nowhere (its file is not in the repository), for one row.
STALE = ("diff --git a/nowhere.py b/nowhere.py\n--- a/nowhere.py\n+++ b/nowhere.py\n"
         "@@ -1 +1 @@\n-old\n+new\n")
STALE_ROW = "acme__srclay-pad"


@dataclass
class Agreement:
    project: SweProject
    rows: list[dict[str, Any]]
    ours: dict[str, dict[str, Any]]  # kind -> report.json of our export
    theirs: dict[str, dict[str, official.Official]]  # kind -> instance -> official outcome
    summaries: dict[str, dict[str, Any]]  # kind -> our export's summary.json
    gate: str  # what `doit gold` printed
    imported: str  # what the import printed


def _project(root: Path) -> SweProject:
    env = {**os.environ, "EVAL_TASKS": str(root / "tasks"), "EVAL_LOCK_DIR": str(root / "lock"),
           "EVAL_STORE": str(root / "store"), "EVAL_EVALS": str(root / "evals"),
           "EVAL_AGENTS": str(root / "agents"), "PYTHONPATH": str(REPO)}
    return SweProject(root, env, {})


def _ok(out: Any) -> str:
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return str(out.stdout)


@pytest.fixture(scope="module")
def agreement(tmp_path_factory: pytest.TempPathFactory, docker_client: Any, base_image: str
              ) -> Agreement:
    py = official.python()
    root = tmp_path_factory.mktemp("agree")
    rows, patches = [], {}
    for family in FAMILIES:
        ctx, r, p = build(root / "src", family)
        build_image(ctx, family.image)
        rows += r
        patches.update(p)
    instances = root / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    preds = {k: {i: p[k] for i, p in patches.items()} for k in KINDS}
    preds["stale"] = {STALE_ROW: STALE}
    for kind in (*KINDS, "stale"):
        (root / f"{kind}.jsonl").write_text("".join(json.dumps(
            {"instance_id": i, "model_name_or_path": kind, "model_patch": patch}) + "\n"
            for i, patch in preds[kind].items()))
    # The official side runs while ours does (its containers and ours share the engine).
    procs = {k: official.start(py, instances, root / f"{k}.jsonl", f"agree-{k}",
                               root / "official") for k in ("gold", "noop", "stale")}
    p = _project(root / "ours")
    p.root.mkdir()
    imported = _ok(p.evaluator("import", "swebench", str(instances), "--set", "up"))
    set_yaml = p.root / "tasks" / "up" / "set.yaml"
    set_yaml.write_text(set_yaml.read_text().replace("gold_reps: 3", "gold_reps: 1"))
    _ok(p.doit("lock:up"))
    gate = _ok(p.doit("-n", "2", "-P", "process", "gold:up"))
    ours, summaries = {}, {}
    for kind in (*KINDS, "stale"):
        _ok(p.evaluator("predictions", "grade", str(root / f"{kind}.jsonl"), "--set", "up"))
        _ok(p.evaluator("export", "swebench", "--set", "up", "--agent", kind, "--out",
                        str(p.root / kind), "--no-instances"))
        ours[kind] = json.loads((p.root / kind / "report.json").read_text())
        summaries[kind] = json.loads((p.root / kind / "summary.json").read_text())
    theirs = {k: official.results(proc, root / "official", f"agree-{k}", k, preds[k],
                                  expect_graded=k != "stale") for k, proc in procs.items()}
    theirs["empty"] = {i: official.Official(False, {}, "empty patch") for i in preds["empty"]}
    return Agreement(p, rows, ours, theirs, summaries, gate, imported)


def _failures(entry: dict[str, Any]) -> dict[str, list[str]]:
    status = entry.get("tests_status", {})
    return {k: status[k]["failure"] for k in ("FAIL_TO_PASS", "PASS_TO_PASS") if k in status}


@pytest.mark.parametrize("kind", KINDS)
def test_both_harnesses_agree_on_every_row(agreement: Agreement, kind: str) -> None:
    for row in agreement.rows:
        iid = row["instance_id"]
        ours, theirs = agreement.ours[kind].get(iid, {}), agreement.theirs[kind][iid]
        assert bool(ours.get("resolved")) == theirs.resolved == (kind == "gold"), (kind, iid)
        if theirs.state == "graded":  # test for test, where the official harness ran them
            assert _failures(ours) == theirs.failures, (kind, iid)


def test_every_row_of_every_runner_is_valid_at_the_gate(agreement: Agreement) -> None:
    for row in agreement.rows:
        assert f"\n{row['instance_id']} " in agreement.gate, agreement.gate
    assert f"totals: valid {len(agreement.rows)}" in agreement.gate, agreement.gate


def _gold_grade(agreement: Agreement, iid: str) -> dict[str, Any]:
    grades = [json.loads(f.read_text()) for f in
              (agreement.project.root / "store" / "records" / "grade").rglob("*")
              if f.is_file() and iid.encode() in f.read_bytes()]
    gold = [g for g in grades if g.get("resolved") and g.get("task_id") == iid]
    assert gold, iid
    return gold[0]


def test_the_grade_says_which_hardening_a_script_runner_cannot_take(agreement: Agreement) -> None:
    assert "PYTHONSAFEPATH" in " ".join(_gold_grade(agreement, "acme__symp-lcm")["hardening"])
    assert _gold_grade(agreement, "acme__srclay-pad")["hardening"] == []


def test_ids_that_are_not_one_test_each_are_named_in_the_grade(agreement: Agreement) -> None:
    ids = _gold_grade(agreement, "acme__srclay-pad")["ids"]
    assert ids["tests/test_core.py::test_pad[a"] == ["tests/test_core.py::test_pad[a b-5]",
                                                     "tests/test_core.py::test_pad[a bc-6]"]
    inner = _gold_grade(agreement, "acme__tally-failed")["ids"]["test_inner.py::test_known"]
    assert "not a test of this run" in inner[0]


def test_the_import_says_which_ids_are_kept_as_the_official_parsers_key_them(
        agreement: Agreement) -> None:
    line = {ln.split()[1]: ln for ln in agreement.imported.splitlines() if ln.startswith("imp")}
    assert "cut at a whitespace" in line["acme__srclay-pad"]
    assert "docstring's line" in line["acme__djang-slugify"]


def test_a_patch_that_does_not_apply_is_an_error_on_both_sides(agreement: Agreement) -> None:
    assert agreement.theirs["stale"][STALE_ROW].state == "error"
    summary = agreement.summaries["stale"]
    assert summary["error_ids"] == [STALE_ROW] and summary["completed_ids"] == []
    why = summary["evaluator"]["errors"][STALE_ROW]
    assert why.startswith("the patch does not apply at the base commit (error:"), why
    assert "does not apply" in agreement.ours["stale"][STALE_ROW]["evaluator_why"]
