from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaluator.swebench import GitCloneFiles, ImportOptions, RowReport, import_rows, read_rows
from evaluator.taskset import load_task_set
from tests.swebench.fixtures import IDS, base_repo, row


def _import(tmp_path: Path, rows: list[dict[str, Any]], repo: Path, **kw: Any) -> list[RowReport]:
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    clone = GitCloneFiles(repo)
    opts = ImportOptions("imported", tmp_path / "tasks", setup="", **kw)
    opts.base_files = lambda image: clone
    return import_rows(read_rows(tmp_path / "rows.jsonl"), opts)


@pytest.fixture(params=["pytest", "django", "sympy"])
def case(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, dict[str, Any]]:
    repo, sha = base_repo(tmp_path / "repo", request.param)
    return request.param, repo, row(repo, sha, request.param, f"acme__calc-{request.param}")


def test_a_row_becomes_a_task_that_loads(tmp_path: Path, case: tuple[str, Path, dict[str, Any]]
                                         ) -> None:
    style, repo, r = case
    [rep] = _import(tmp_path, [r], repo)
    assert rep.status == "imported", rep.problems
    task = load_task_set("imported", tmp_path / "tasks").task(f"acme__calc-{style}")
    assert list(task.spec.fail_to_pass) == IDS[style][0]
    assert task.spec.results == ("junit" if style == "pytest" else style)
    assert task.spec.user == "root" and task.spec.base_commit == r["base_commit"]
    hidden = {k: v.read_text() for k, v in task.hidden_test_files().items()}
    assert len(hidden) == 2 and all("def test_" in t for t in hidden.values())
    assert any("test_zero" in t and "test_add" in t for t in hidden.values())  # base + patch


def test_a_rerun_is_unchanged_and_a_different_row_is_not_overwritten(
        tmp_path: Path, case: tuple[str, Path, dict[str, Any]]) -> None:
    _style, repo, r = case
    _import(tmp_path, [r], repo)
    assert _import(tmp_path, [r], repo)[0].status == "unchanged"
    other = {**r, "problem_statement": "changed\n"}
    [rep] = _import(tmp_path, [other], repo)
    assert rep.status == "skipped" and "--replace" in rep.problems[0]
    assert _import(tmp_path, [other], repo, replace=True)[0].status == "replaced"
    assert sorted(p.name for p in (tmp_path / "tasks").iterdir()) == ["imported"]  # no scratch


def test_a_malformed_row_is_reported_and_the_rest_imported(tmp_path: Path) -> None:
    repo, sha = base_repo(tmp_path / "repo", "pytest")
    good = row(repo, sha, "pytest", "acme__calc-1")
    no_tests = {**good, "instance_id": "acme__calc-2", "test_patch": ""}
    no_f2p = {**good, "instance_id": "acme__calc-3", "FAIL_TO_PASS": "[]"}
    deletes = {**good, "instance_id": "acme__calc-4",
               "test_patch": "diff --git a/tests/test_calc.py b/tests/test_calc.py\ndeleted "
                             "file mode 100644\n--- a/tests/test_calc.py\n+++ /dev/null\n"
                             "@@ -1,5 +0,0 @@\n-from calc import add\n-\n-\n-def test_zero():\n"
                             "-    assert add(0, 0) == 0\n"}
    reports = _import(tmp_path, [good, no_tests, no_f2p, deletes], repo)
    assert [r.status for r in reports] == ["imported", "skipped", "skipped", "skipped"]
    assert "test_patch" in reports[1].problems[0]
    assert "FAIL_TO_PASS is empty" in reports[2].problems[0]
    assert "deletes" in reports[3].problems[0]
    assert [t.id for t in load_task_set("imported", tmp_path / "tasks").tasks] == ["acme__calc-1"]


def test_modified_test_files_need_a_base_source(tmp_path: Path) -> None:
    repo, sha = base_repo(tmp_path / "repo", "pytest")
    (tmp_path / "rows.json").write_text(json.dumps([row(repo, sha, "pytest", "a__b-1")]))
    [rep] = import_rows(read_rows(tmp_path / "rows.json"),
                        ImportOptions("s", tmp_path / "tasks", setup=""))
    assert rep.status == "skipped" and "--repo-dir" in rep.problems[0]


def test_an_import_that_places_nothing_leaves_no_set_folder(tmp_path: Path) -> None:
    repo, sha = base_repo(tmp_path / "repo", "pytest")
    bad = {**row(repo, sha, "pytest", "acme__calc-1"), "FAIL_TO_PASS": "[]"}
    [rep] = _import(tmp_path, [bad], repo)
    assert rep.status == "skipped" and not (tmp_path / "tasks").exists()
    (tmp_path / "tasks" / "kept").mkdir(parents=True)  # a tasks root that was already there
    _import(tmp_path, [bad], repo)
    assert [p.name for p in (tmp_path / "tasks").iterdir()] == ["kept"]


def test_each_imported_task_says_how_its_image_is_fetched(tmp_path: Path) -> None:
    repo, sha = base_repo(tmp_path / "repo", "pytest")
    [rep] = _import(tmp_path, [row(repo, sha, "pytest", "acme__calc-1")], repo)
    task = load_task_set("imported", tmp_path / "tasks").task("acme__calc-1")
    assert task.spec.fetch == f"docker pull {task.spec.image}"
    assert task.spec.image.startswith("swebench/sweb.eval.x86_64.acme_1776_calc-1")


@pytest.mark.docker
def test_a_missing_image_says_which_command_fetches_it(tmp_path: Path, docker_client) -> None:
    from evaluator.swebench import ImageFiles

    repo, sha = base_repo(tmp_path / "repo", "pytest")
    (tmp_path / "rows.json").write_text(json.dumps([row(repo, sha, "pytest", "acme__calc-1")]))
    opts = ImportOptions("s", tmp_path / "tasks", setup="")
    opts.base_files = lambda image: ImageFiles(docker_client, image, "/testbed")
    [rep] = import_rows(read_rows(tmp_path / "rows.json"), opts)
    image = "swebench/sweb.eval.x86_64.acme_1776_calc-1:latest"
    assert rep.status == "skipped" and "doit images" not in rep.problems[0]
    assert f"`docker pull {image}`" in rep.problems[0]
    assert "swebench.harness.prepare_images --instance_ids acme__calc-1" in rep.problems[0]
    assert "--repo-dir" in rep.problems[0] and not (tmp_path / "tasks").exists()


def test_one_bad_line_fails_alone_named_by_line_and_field(tmp_path: Path) -> None:
    """Issue 31: a bad line of an instances file refused the whole file, good rows included."""
    repo, sha = base_repo(tmp_path / "repo", "pytest")
    good = [row(repo, sha, "pytest", f"acme__calc-{i}") for i in (1, 2)]
    no_repo = {k: v for k, v in {**good[0], "instance_id": "acme__calc-3"}.items()
               if k != "base_commit"}
    lines = [json.dumps(good[0]), '{"instance_id": "acme__calc-9", "patch": ', json.dumps(no_repo),
             json.dumps(good[1])]
    (tmp_path / "rows.jsonl").write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "evaluator", "import", "swebench",
                          str(tmp_path / "rows.jsonl"), "--set", "imported", "--setup", "",
                          "--repo-dir", str(repo), "--no-build", "--tasks", str(tmp_path / "tasks")],
                         text=True, capture_output=True, cwd=tmp_path, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert out.returncode == 1, out.stdout + out.stderr  # not every row made it
    skipped = [line for line in out.stdout.splitlines() if line.startswith("skipped")]
    assert len(skipped) == 2 and "rows.jsonl:2: not a JSON row" in skipped[0]
    assert "rows.jsonl:3: missing or empty column(s): base_commit" in skipped[1]
    assert "2 of 4 row(s) in tasks/imported" in out.stdout
    assert [t.id for t in load_task_set("imported", tmp_path / "tasks").tasks] == [
        "acme__calc-1", "acme__calc-2"]
