"""The official SWE-bench harness (swebench 5.x, in a virtualenv of its own: `make swebench-venv`
from swebench-harness.lock), run on rows and predictions files, read per instance."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import unavailable

REPO = Path(__file__).resolve().parents[2]
# Relative to the checkout (make passes SWEBENCH_VENV=.venv-swebench; the harness runs elsewhere).
VENV = REPO / os.environ.get("SWEBENCH_VENV", ".venv-swebench")
# The entry point with network_mode="none" on each container it creates: this engine has no
# bridge. Nothing it grades changes.
NO_BRIDGE = ("import runpy, docker.models.containers as c; o = c.ContainerCollection.create; "
             "c.ContainerCollection.create = lambda s, *a, **k: o(s, *a, **{'network_mode': "
             "'none', **k}); runpy.run_module('swebench.harness.run_evaluation', "
             "run_name='__main__')")


@dataclass(frozen=True)
class Official:
    """One instance as the official harness graded it: resolved, or why not."""

    resolved: bool
    failures: dict[str, list[str]]  # FAIL_TO_PASS / PASS_TO_PASS -> failing ids
    state: str  # "graded", "empty patch" (not run), "error" (no report: patch did not apply...)


def python() -> Path:
    py = VENV / "bin" / "python"
    probe = subprocess.run([str(py), "-c", "import swebench; print(swebench.__version__)"],
                           capture_output=True, text=True) if py.exists() else None
    if probe is None or probe.returncode or not probe.stdout.startswith("5."):
        unavailable(f"the official SWE-bench harness is not installed in {VENV}: run "
                    "`make swebench-venv` (swebench 5.x from swebench-harness.lock)")
    return py


def start(py: Path, instances: Path, predictions: Path, run_id: str, cwd: Path,
          workers: int = 2, timeout_s: int = 300) -> subprocess.Popen[str]:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [str(py), "-c", NO_BRIDGE, "-d", str(instances), "-p", str(predictions), "--run_id",
         run_id, "--max_workers", str(workers), "--report_dir", str(cwd), "--timeout", str(timeout_s)],
        cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def results(proc: subprocess.Popen[str], cwd: Path, run_id: str, model: str,
            predictions: dict[str, str], expect_graded: bool = True,
            wait_s: int = 900) -> dict[str, Official]:
    """Per instance, from each instance's own report.json (the run's summary also lists the
    engine's containers, which another test may be removing at that moment)."""
    out, _ = proc.communicate(timeout=wait_s)
    found: dict[str, Official] = {}
    for iid, patch in predictions.items():
        report = cwd / "logs" / "run_evaluation" / run_id / model / iid / "report.json"
        if not patch:
            found[iid] = Official(False, {}, "empty patch")
        elif report.is_file():
            entry: dict[str, Any] = json.loads(report.read_text())[iid]
            status = entry.get("tests_status", {})
            found[iid] = Official(bool(entry["resolved"]), {
                k: status[k]["failure"] for k in ("FAIL_TO_PASS", "PASS_TO_PASS") if k in status},
                "graded" if entry.get("patch_successfully_applied") else "error")
        else:
            found[iid] = Official(False, {}, "error")
    if expect_graded and all(o.state == "error" for o in found.values()):
        raise AssertionError(f"the official harness graded nothing:\n{out[-4000:]}")
    return found
