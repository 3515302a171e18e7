"""A damaged store under doit (issue 31): one truncated record no longer takes down `plan`,
`eval` and `report` of its set with a JSONDecodeError naming no file (`store verify` names it);
a missing blob no longer shows as an attempt of "0 steps" and an empty patch without a word."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pipeline.support import Project, executed

pytestmark = pytest.mark.docker


def _attempts(p: Project) -> dict[str, Path]:
    """Attempt record files by label (agent/task/sample)."""
    out = {}
    for path in (p.root / "store" / "records" / "attempt").glob("*/*.json"):
        r = json.loads(path.read_bytes())
        out[f"{r['subject']}/{r['task_id']}/{r['sample_idx']}"] = path
    return out


def test_a_truncated_record_is_named_set_aside_and_run_again(evaluated: Project) -> None:
    """plan and eval count what is done from the index and read no record file of done work,
    so a damaged one breaks neither; `store verify` (or a report page that reads it) names it
    and sets it aside, and then its attempt alone runs again."""
    path = _attempts(evaluated)["sim-b/add-bug/0"]
    damaged = path.read_bytes()[:100]
    path.write_bytes(damaged)
    evaluated.env["EVAL_REPORTS"] = str(evaluated.root / "reports")
    out = evaluated.doit("plan:mini")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
    verify = [sys.executable, "-m", "evaluator", "store", "verify"]
    out = subprocess.run(verify, env=evaluated.env, cwd=evaluated.root, text=True,
                         capture_output=True, timeout=300)
    assert out.returncode == 1 and str(path) in out.stdout and "--set-aside" in out.stdout
    aside = subprocess.run([*verify, "--set-aside"], env=evaluated.env, cwd=evaluated.root,
                           text=True, capture_output=True, timeout=300)
    assert aside.returncode == 0, aside.stdout + aside.stderr
    kept = list((evaluated.root / "store" / "corrupt" / "attempt" / path.stem).iterdir())
    assert [k.read_bytes() for k in kept] == [damaged]
    assert "1 of 4 attempts would run" in evaluated.doit("plan:mini").stdout
    out = evaluated.doit("eval:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    assert executed(out.stdout, "attempt:") == ["attempt:mini/sim-b/add-bug/0"]
    assert json.loads(path.read_bytes())["key"] == path.stem  # landed again, whole
    report = evaluated.doit("report:mini")
    assert report.returncode == 0, report.stdout + report.stderr


def test_a_missing_blob_is_said_by_verify_the_report_and_the_page(evaluated: Project) -> None:
    path = _attempts(evaluated)["sim-a/add-bug-two/0"]
    trajectory = json.loads(path.read_bytes())["trajectory"]
    blob = evaluated.root / "store" / "blobs" / trajectory[:2] / trajectory[2:]
    blob.unlink()
    verify = [sys.executable, "-m", "evaluator", "store", "verify"]
    out = subprocess.run(verify, env=evaluated.env, cwd=evaluated.root, text=True,
                         capture_output=True, timeout=300)
    assert out.returncode == 1
    assert f"attempt/{path.stem} needs blob {trajectory} (its trajectory)" in out.stdout
    evaluated.env["EVAL_REPORTS"] = str(evaluated.root / "reports")
    report = evaluated.doit("report:mini")
    assert report.returncode == 0, report.stdout + report.stderr
    assert f"attempt {path.stem} (sim-a/add-bug-two/0): the attempt's trajectory (blob " \
           f"{trajectory})" in report.stderr
    page = (evaluated.root / "reports" / "mini" / "site" / "attempts" / f"{path.stem}.html")
    assert "Missing from the store" in page.read_text() and trajectory in page.read_text()
    aside = subprocess.run([*verify, "--set-aside"], env=evaluated.env, cwd=evaluated.root,
                           text=True, capture_output=True, timeout=300)
    assert aside.returncode == 0, aside.stdout + aside.stderr
    again = evaluated.doit("eval:mini")
    assert executed(again.stdout, "attempt:") == ["attempt:mini/sim-a/add-bug-two/0"]
    assert subprocess.run(verify, env=evaluated.env, cwd=evaluated.root,
                          capture_output=True, timeout=300).returncode == 0
