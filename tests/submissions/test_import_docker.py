"""End to end on real containers: rows whose environment skips a PASS_TO_PASS test, gated as
SWE-bench counts them (issue 35: a pytest or sympy skip names no test, so it fails; Django's
is kept), then a published submission imported, graded, re-imported as a no-op, and gated on
agreement through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.submissions.project import SKIPS, docs_only, make_skip_project
from tests.submissions.published import Folder, Published, report
from tests.swebench.support import SweProject, light_gate

pytestmark = pytest.mark.docker
NAME = "20240601_e2e_model"


def _ok(out: Any) -> str:
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return str(out.stdout)


def _verdicts(out: str) -> dict[str, str]:
    return {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("acme__calc-")}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, docker_client: Any, base_image: str
            ) -> tuple[SweProject, str]:
    p = make_skip_project(tmp_path_factory.mktemp("skips"))
    _ok(p.evaluator("import", "swebench", "taskrepo", "--set", "sw", "--setup", ""))
    light_gate(p, "sw")
    _ok(p.doit("lock:sw"))
    gold = p.doit("-n", "2", "-P", "process", "gold:sw")
    return p, gold.stdout + gold.stderr


def test_the_gate_counts_skipped_pass_to_pass_tests_as_the_official_harness_does(
        project: tuple[SweProject, str]) -> None:
    _, gold = project
    lines = _verdicts(gold)
    for style in ("pytest", "sympy"):
        line = lines[f"acme__calc-{style}-skip"]
        assert " broken-gold " in line, gold
        assert f"the environment skips 1 required test(s) with the gold patch: " \
               f"{SKIPS[style][2]}" in line, line
    django = lines["acme__calc-django-skip"]
    assert " valid " in django and "the environment skips 1 required test(s)" in django, django
    assert " valid " in lines["acme__calc-pytest"]


@pytest.fixture(scope="module")
def imported(project: tuple[SweProject, str], tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[SweProject, Path, str]:
    p, _ = project
    rows = p.rows
    ok = {"success": json.loads(rows["acme__calc-pytest"]["FAIL_TO_PASS"]), "failure": []}
    p2p = {"success": json.loads(rows["acme__calc-pytest"]["PASS_TO_PASS"]), "failure": []}
    folder = Folder("verified", NAME, "org/e2e", [
        Published("acme__calc-pytest", rows["acme__calc-pytest"]["patch"],
                  report("acme__calc-pytest", resolved=True, f2p=ok, p2p=p2p)),
        # Published resolved in their run, where the optional module was installed.
        Published("acme__calc-pytest-skip", rows["acme__calc-pytest-skip"]["patch"]),
        # A patch that only touches documentation, published as resolved.
        Published("acme__calc-django-skip", docs_only()),
        Published("acme__calc-sympy-skip", rows["acme__calc-sympy-skip"]["patch"]),
    ], results={"resolved": ["acme__calc-pytest", "acme__calc-pytest-skip",
                             "acme__calc-django-skip"],
                "no_generation": [], "no_logs": ["acme__calc-sympy-skip"]}
    ).write(tmp_path_factory.mktemp("experiments"))
    out = _ok(p.evaluator("import", "submission", str(folder), "--set", "sw", "--all-rows"))
    return p, folder, out


def test_a_submission_is_graded_and_set_beside_what_it_published(
        imported: tuple[SweProject, Path, str]) -> None:
    p, _, out = imported
    assert f"submission {NAME} (verified, model org/e2e) on sw: 4 instance(s): 1 agree, " \
           "1 disagree (1 their evaluation)" in out, out
    rows = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("acme__calc-")}
    assert "resolved" in rows["acme__calc-pytest"] and " agree " in rows["acme__calc-pytest"]
    assert "not graded: broken-gold" in rows["acme__calc-pytest-skip"]
    assert "environment" in rows["acme__calc-pytest-skip"]
    assert " disagree " in rows["acme__calc-django-skip"], out
    assert "unpublished" in rows["acme__calc-sympy-skip"] or "not graded" in rows[
        "acme__calc-sympy-skip"]


def test_a_second_import_grades_nothing_and_the_gate_requires_agreement(
        imported: tuple[SweProject, Path, str]) -> None:
    p, folder, _ = imported
    again = _ok(p.evaluator("import", "submission", str(folder), "--set", "sw"))
    assert "0 to grade" in again or "already graded" in again, again
    gate = p.evaluator("gate", "--set", "sw", "--candidate", NAME, "--require-agreement")
    assert gate.returncode == 1 and "agreement: FAIL, 1 instance(s)" in gate.stdout, gate.stdout
    table = json.loads(_ok(p.evaluator("agreement", "--set", "sw", "--json")))[0]
    row = next(r for r in table["rows"] if r["instance_id"] == "acme__calc-django-skip")
    assert (row["published"], row["ours"], row["cause"]) == (True, "failed", "their evaluation")
