"""Provenance never claims a clean checkout when agent files are untracked."""

from __future__ import annotations

import subprocess
from pathlib import Path

from evaluator.attempts import checkout_state, provenance
from tests.agents.support import ExtAgent


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


def _roots(ext: ExtAgent) -> dict[str, dict]:
    return {r["kind"]: r for r in provenance(ext.load())["agent"]["roots"]}


def test_each_code_root_is_recorded_in_its_own_checkout(ext: ExtAgent) -> None:
    # The agent's folder is in no checkout; the code it imports is, untracked there.
    git(ext.code, "init", "-q")
    git(ext.code, "commit", "-q", "--allow-empty", "-m", "empty")
    state = provenance(ext.load())["agent"]
    roots = {r["kind"]: r for r in state["roots"]}
    assert roots["folder"]["git_commit"] is None and roots["folder"]["content"]
    code = roots["code"]
    assert code["root"] == str((ext.code / "extagent").resolve())
    assert code["git_commit"] and code["git_dirty"] is True and "content" not in code
    assert "extagent/entry.py" in code["changed"] and "extagent/unrelated.py" not in code["changed"]
    assert state["git_dirty"] is True  # any root with changes


def test_roots_outside_any_checkout_are_recorded_by_content(ext: ExtAgent) -> None:
    before = _roots(ext)
    assert before["code"]["git_commit"] is None and before["code"]["git_dirty"] is None
    ext.write("extagent/late.py", "later = 2\n")  # a module the agent imports
    after = _roots(ext)
    assert after["code"]["content"] != before["code"]["content"]
    assert after["folder"]["content"] == before["folder"]["content"]
