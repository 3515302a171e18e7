"""Provenance never claims a clean checkout when agent files are untracked."""

from __future__ import annotations

import subprocess
from pathlib import Path

from evaluator.attempts import checkout_state, provenance
from tests.agents.conftest import ExtAgent


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


def test_untracked_agent_files_make_the_checkout_dirty(ext: ExtAgent, tmp_path) -> None:
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "agent")
    assert checkout_state([ext.agents / "ext"])["git_dirty"] is False
    (ext.agents / "ext" / "helper.py").write_text("x = 1\n")
    state = checkout_state([ext.agents / "ext"])
    assert state["git_dirty"] is True and state["changed"] == ["agents/ext/helper.py"]


def test_outside_a_checkout_dirty_is_unknown_not_false(ext: ExtAgent) -> None:
    state = provenance(ext.load())["agent"]
    assert state["git_commit"] is None and state["git_dirty"] is None
