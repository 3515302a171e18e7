"""Submission folders in the shape SWE-bench's experiments repository publishes them
(`evaluation/<split>/<date>_<name>/`), generated here: the facts of the shape were learnt from
the repository and the official harness (swebench 5.x's `run_evaluation` writes the same
`logs/<id>/report.json` and `test_output.txt`); nothing of theirs is copied.

The test output is real: a small repository whose tests pass, fail, skip or fail to import as a
scenario asks, run by real pytest with `-rA`, wrapped in the eval script's `set -x` trace and
SWE-bench's output markers, as `test_output.txt` holds it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

F2P = "tests/test_hidden.py::test_add"
P2P = ("tests/test_visible.py::test_zero", "tests/test_hidden.py::test_zero_hidden")
EXTRA = "tests/test_visible.py::test_extra"  # a test only their row requires

# Each test fails when its name is in $FAIL, skips when in $SKIP, and the module named in
# $MISSING cannot be imported by the test named in $NEEDS.
_REPO = {
    "tests/_ctl.py": textwrap.dedent("""\
        import os
        import pytest


        def outcome(name):
            if name in os.environ.get("SKIP", "").split(","):
                pytest.skip("not in this environment")
            if name in os.environ.get("NEEDS", "").split(","):
                __import__(os.environ["MISSING"])
            assert name not in os.environ.get("FAIL", "").split(","), f"{name} broke"
        """),
    "tests/test_hidden.py": textwrap.dedent("""\
        from _ctl import outcome


        def test_add():
            outcome("test_add")


        def test_zero_hidden():
            outcome("test_zero_hidden")
        """),
    "tests/test_visible.py": textwrap.dedent("""\
        from _ctl import outcome


        def test_zero():
            outcome("test_zero")


        def test_extra():
            outcome("test_extra")
        """),
}
_TRACE_BEFORE = ("+ source /opt/miniconda3/bin/activate\n++ _CONDA_ROOT=/opt/miniconda3\n"
                 "+ conda activate testbed\n+ cd /testbed\n"
                 "+ git config --global --add safe.directory /testbed\n+ git status\n"
                 "On branch main\nnothing to commit, working tree clean\n"
                 "+ git checkout 1111111 tests/test_hidden.py\nUpdated 1 path from 2222222\n"
                 "+ git apply -v -\nChecking patch tests/test_hidden.py...\n"
                 "Applied patch tests/test_hidden.py cleanly.\n"
                 "+ : '>>>>> Start Test Output'\n+ pytest -rA tests\n")
_TRACE_AFTER = ("+ : '>>>>> End Test Output'\n+ git checkout 1111111 tests/test_hidden.py\n"
                "Updated 1 path from 2222222\n")


_MANY = textwrap.dedent("""\
    import contextlib, io, json, os, sys
    import pytest
    out = {}
    for name, env in json.loads(sys.argv[1]).items():
        os.environ.update(env)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            pytest.main(["-rA", "-p", "no:cacheprovider", "tests"])
        out[name] = buf.getvalue()
    print(json.dumps(out))
    """)


def pytest_outputs(root: Path, scenarios: dict[str, dict[str, tuple[str, ...]]]
                   ) -> dict[str, str]:
    """Real `pytest -rA tests` output of the repository (made under `root` once) for each
    scenario (name -> `fail`, `skip`, `needs` test names), all in one interpreter: pytest's
    start-up is most of a run's time."""
    if not (root / "tests" / "_ctl.py").is_file():
        for rel, text in _REPO.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    envs = {name: {"FAIL": ",".join(sc.get("fail", ())), "SKIP": ",".join(sc.get("skip", ())),
                   "NEEDS": ",".join(sc.get("needs", ())), "MISSING": "numpy_absent_here"}
            for name, sc in scenarios.items()}
    run = subprocess.run([sys.executable, "-c", _MANY, json.dumps(envs)], cwd=root,
                         env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    outputs: dict[str, str] = json.loads(run.stdout.splitlines()[-1])
    return outputs


def pytest_output(root: Path, *, fail: tuple[str, ...] = (), skip: tuple[str, ...] = (),
                  needs: tuple[str, ...] = ()) -> str:
    """One scenario's output (see `pytest_outputs`)."""
    return pytest_outputs(root, {"one": {"fail": fail, "skip": skip, "needs": needs}})["one"]


def as_test_output(pytest_text: str) -> str:
    """As `logs/<id>/test_output.txt` holds it: the eval script's trace around the tests."""
    return _TRACE_BEFORE + pytest_text + _TRACE_AFTER


def report(iid: str, *, resolved: bool, f2p: dict[str, list[str]] | None = None,
           p2p: dict[str, list[str]] | None = None, applied: bool = True,
           generation: str = "docker") -> dict[str, Any]:
    """`logs/<id>/report.json`: the docker harness's (`generation` "docker"), swebench 5's
    (adds infra_failure) or one whose tests never ran (no tests_status)."""
    entry: dict[str, Any] = {"patch_is_None": False, "patch_exists": True,
                             "patch_successfully_applied": applied, "resolved": resolved}
    if generation == "5":
        entry["infra_failure"] = False
    if applied and f2p is not None:
        entry["tests_status"] = {
            "FAIL_TO_PASS": f2p, "PASS_TO_PASS": p2p or {"success": list(P2P), "failure": []},
            "FAIL_TO_FAIL": {"success": [], "failure": []},
            "PASS_TO_FAIL": {"success": [], "failure": []}}
    return {iid: entry}


@dataclass
class Published:
    """One instance of a submission: its prediction and what was published about it."""

    instance_id: str
    patch: str | None
    report: dict[str, Any] | None = None
    output: str | None = None
    flat_log: str | None = None  # the 2023-24 harness's logs/<id>.<model>.eval.log


@dataclass
class Folder:
    split: str
    name: str
    model: str
    instances: list[Published]
    results: dict[str, list[str]] | None = None
    preds: str = "all_preds.jsonl"  # or "preds.json" (an object by id) or "preds.json[]"
    extra: dict[str, str] = field(default_factory=dict)

    def write(self, experiments: Path) -> Path:
        root = experiments / "evaluation" / self.split / self.name
        (root / "logs").mkdir(parents=True)
        rows = [{"instance_id": p.instance_id, "model_name_or_path": self.model,
                 "model_patch": p.patch} for p in self.instances]
        if self.preds == "all_preds.jsonl":
            (root / "all_preds.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        elif self.preds == "preds.json":
            (root / "preds.json").write_text(json.dumps({r["instance_id"]: r for r in rows}))
        else:
            (root / "preds.json").write_text(json.dumps(rows))
        if self.results is not None:
            (root / "results").mkdir()
            (root / "results" / "results.json").write_text(json.dumps(self.results, indent=4))
        (root / "metadata.yaml").write_text(f"name: {self.name}\n")
        for p in self.instances:
            if p.report is not None or p.output is not None:
                (root / "logs" / p.instance_id).mkdir()
            if p.report is not None:
                (root / "logs" / p.instance_id / "report.json").write_text(
                    json.dumps(p.report, indent=4))
            if p.output is not None:
                (root / "logs" / p.instance_id / "test_output.txt").write_text(p.output)
            if p.flat_log is not None:
                (root / "logs" / f"{p.instance_id}.{self.model}.eval.log").write_text(
                    p.flat_log)
        for rel, text in self.extra.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        return root
