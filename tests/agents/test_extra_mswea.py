"""The mini-swe-agent extra alone (a fresh venv of requirements.lock and
requirements-mini-swe-agent.lock) runs the bundled scaffold through `doit eval`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.store import Store
from tests.extras import extra_python
from tests.pipeline.support import REPO, Project

pytestmark = pytest.mark.docker


def test_the_mini_swe_agent_extra_alone_runs_and_grades_an_attempt(gated: Project,
                                                                    tmp_path: Path) -> None:
    python = extra_python("mini-swe-agent", tmp_path)
    shutil.copytree(REPO / "agents" / "mini-swe-agent", gated.root / "agents" / "mini-swe-agent")
    gated.eval_config(agents=["mini-swe-agent"], baseline="mini-swe-agent", samples=1)
    out = subprocess.run([str(python), "-m", "doit", "-f", str(REPO / "dodo.py"), "-n", "2",
                          "-P", "process", "eval:mini"], env=gated.env, cwd=gated.root,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    store = Store(gated.root / "store")
    attempts = list(store.iter_records("attempt"))
    assert {a["subject"] for a in attempts} == {"mini-swe-agent"} and len(attempts) == 2
    assert len(list(store.iter_records("result"))) == 2
