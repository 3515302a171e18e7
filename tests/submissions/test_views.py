"""The agreement table where users read it: the report (summary.json, report.md), the site's
agreement page, the `agreement` command, `gate --require-agreement`, the SWE-bench export and
the HTTP API (a real server on loopback)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from evaluator.__main__ import main
from evaluator.api import Settings
from evaluator.reports import render_report, report_site
from evaluator.submissions import PublishedRecord
from tests.api.support import ThreadServer
from tests.submissions.published import F2P, Folder, Published, report
from tests.submissions.world import FULL, OK, World, patch

AGREEING = "20250304_agrees"


def _paths(world: World) -> dict[str, Any]:
    return {"store": world.store.root, "tasks_root": world.root / "tasks",
            "lock_dir": world.root / "lock", "evals_root": world.root / "evals",
            "agents_root": world.root / "agents"}


def _cli(world: World, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*args, "--store", str(world.store.root), "--tasks", str(world.root / "tasks"),
                     "--lock-dir", str(world.root / "lock")])
    return code, out.getvalue()


@pytest.fixture(scope="module")
def agreeing(world: World, full: PublishedRecord) -> PublishedRecord:
    return world.submit(Folder("verified", AGREEING, "m", [
        Published("acme__calc-1", patch("fix"), report("acme__calc-1", resolved=True, f2p=OK)),
        Published("acme__calc-2", patch("docs"), report("acme__calc-2", resolved=False,
                                                        f2p={"success": [], "failure": [F2P]}))]))


def test_the_report_has_each_submission_compact_and_report_md_lists_the_differences(
        world: World, agreeing: PublishedRecord, tmp_path: Path) -> None:
    summary, paths = render_report("sw", out_root=tmp_path, **_paths(world))
    by = {a["subject"]: a for a in summary["agreement"]}
    assert by[FULL]["counts"]["disagree"] == 6 and by[AGREEING]["counts"]["agree"] == 2
    row = next(r for r in by[FULL]["rows"] if r["instance_id"] == "acme__calc-4")
    assert row["cause"] == "runner reading" and row["tests"][0]["published"] is False
    md = paths["report.md"].read_text()
    assert "## Submissions re-verified" in md and f"### `{FULL}` (verified)" in md
    assert "| `acme__calc-7` | resolved | policy | disagree | our integrity checks |" in md
    assert "`acme__calc-1`" not in md.split(f"### `{AGREEING}`")[1]  # agreeing rows: counted


def test_the_site_shows_both_outputs_side_by_side_and_escapes_them(world: World,
                                                                    agreeing: PublishedRecord
                                                                    ) -> None:
    site = report_site("sw", **_paths(world))
    page = (site.page("agreement.html") or b"").decode()
    assert f'<h2 id="{FULL}"><code>{FULL}</code> (verified)</h2>' in page
    assert "PASSED tests/test_visible.py::test_zero" in page  # their lines, acme__calc-4
    assert "ModuleNotFoundError" in page and "<script" not in page
    assert 'href="agreement.html"' in (site.page("index.html") or b"").decode()


def test_the_agreement_command_and_its_json(world: World, full: PublishedRecord) -> None:
    code, text = _cli(world, "agreement", "--set", "sw", "--subject", FULL, "--differences")
    assert code == 0 and f"submission {FULL} (verified, model org/model) on sw" in text
    assert "acme__calc-1 " not in text and "acme__calc-2 " in text
    code, text = _cli(world, "agreement", "--set", "sw", "--subject", FULL, "--json")
    [t] = json.loads(text)
    assert t["causes"]["runner reading"] == 2
    code, text = _cli(world, "agreement", "--set", "sw", "--subject", "nobody")
    assert code == 2


def test_the_gate_can_require_agreement(world: World, agreeing: PublishedRecord) -> None:
    code, text = _cli(world, "gate", "--set", "sw", "--candidate", FULL, "--require-agreement")
    assert code == 1 and "agreement: FAIL, 6 instance(s)" in text
    code, text = _cli(world, "gate", "--set", "sw", "--candidate", AGREEING,
                      "--require-agreement")
    assert code == 0 and "agreement: pass (2 instance(s) compared, all agree)" in text
    code, text = _cli(world, "gate", "--set", "sw", "--candidate", "nobody",
                      "--require-agreement")
    assert code == 2 and "no submission 'nobody'" in text


def test_the_export_of_a_submission_carries_its_table(world: World, full: PublishedRecord,
                                                      tmp_path: Path) -> None:
    code, _ = _cli(world, "export", "swebench", "--set", "sw", "--agent", FULL, "--out",
                   str(tmp_path), "--no-instances")
    table = json.loads((tmp_path / "agreement.json").read_text())
    assert code == 0 and table["subject"] == FULL and table["counts"]["disagree"] == 6
    assert json.loads((tmp_path / "report.json").read_text())["acme__calc-1"]["resolved"]


def test_the_api_serves_the_table(world: World, full: PublishedRecord) -> None:
    settings = Settings(**_paths(world), cwd=world.root, token="t0ken",
                        doit=(sys.executable, "-c", "pass"))
    with ThreadServer(settings, supervise=False) as api:
        with api.client() as c:
            r = c.get("/v1/agreement", params={"task_set": "sw", "subject": FULL})
            assert r.status_code == 200, r.text
            [t] = r.json()
            assert t["counts"]["disagree"] == 6 and t["rows"][0]["instance_id"] == "acme__calc-1"
            assert c.get("/v1/agreement", params={"task_set": "nope"}).status_code == 422
        with api.client(token=None) as c:
            assert c.get("/v1/agreement", params={"task_set": "sw"}).status_code == 401
