"""`export traj`: a stored attempt as the trajectory file mini-swe-agent itself writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evaluator.__main__ import main
from evaluator.attempts import drive_agent
from evaluator.model import ScriptedModel
from evaluator.simulated import SUBMIT
from evaluator.store import Store
from tests.attempts.support import FakeSandbox, agent, call

PATCH = "diff --git a/calc.py b/calc.py\n"


@pytest.fixture
def stored(tmp_path: Path) -> Store:
    out = drive_agent(agent(tmp_path, "tests.attempts.toolcall_agent:run", price="free"),
                      FakeSandbox(), ScriptedModel([call("c1", "ls"), call("c2", SUBMIT)]),
                      problem_statement="fix calc", workdir="/w", seed=0,
                      record_step=lambda *a: None)
    store = Store(tmp_path / "store")
    store.put("attempt", "a" * 64, {
        "task_set": "s", "task_id": "t", "subject": "bad", "sample_idx": 0,
        "patch": store.put_blob(PATCH.encode()), "exit_reason": out.exit_reason,
        "conversation": store.put_blob(out.conversation.to_json()),
        "usage": {"model_calls": 2}, "cost": {"model_usd": 0.0, "total_usd": 0.0}})
    return store


def export(store: Store, tmp_path: Path, *args: str) -> dict:
    target = tmp_path / "t.traj.json"
    assert main(["export", "traj", "--store", str(store.root), "--out", str(target), *args]) == 0
    return json.loads(target.read_text())


def test_an_attempt_exports_with_its_messages_actions_and_submission(stored, tmp_path) -> None:
    traj = export(stored, tmp_path, "--set", "s", "--agent", "bad", "--task", "t")
    roles = [m["role"] for m in traj["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "exit"]
    assert traj["messages"][2]["extra"]["actions"] == [{"command": "ls", "tool_call_id": "c1"}]
    assert traj["info"]["exit_status"] == "Submitted" and traj["info"]["submission"] == PATCH
    assert traj["messages"][-1]["extra"] == {"exit_status": "Submitted", "submission": PATCH}
    assert traj["instance_id"] == "t" and traj["info"]["model_stats"]["api_calls"] == 2


def test_an_unknown_attempt_is_refused_naming_it(stored, tmp_path, capsys) -> None:
    code = main(["export", "traj", "--store", str(stored.root), "--set", "s", "--agent", "bad",
                 "--task", "nope"])
    assert code == 2 and "no stored attempt of agent 'bad' on task 'nope'" in capsys.readouterr().err


def test_the_shape_is_the_one_mini_swe_agent_saves(stored, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MSWEA_SILENT_STARTUP", "1")
    monkeypatch.setenv("MSWEA_GLOBAL_CONFIG_DIR", str(tmp_path / "mswea"))
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.environments.local import LocalEnvironment
    from minisweagent.models.test_models import DeterministicToolcallModel, make_toolcall_output

    submit = {"id": "c1", "type": "function", "function": {
        "name": "bash", "arguments": '{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}'}}
    model = DeterministicToolcallModel(outputs=[make_toolcall_output(None, [submit], [
        {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "tool_call_id": "c1"}])])
    theirs = DefaultAgent(model, LocalEnvironment(cwd=os.fspath(tmp_path)), system_template="s",
                          instance_template="{{task}}")
    theirs.run("fix calc")
    reference = theirs.serialize({"instance_id": "t"})
    ours = export(stored, tmp_path, "--key", "aaaa")
    assert set(ours) == set(reference) and ours["trajectory_format"] == reference["trajectory_format"]
    assert set(reference["info"]) <= set(ours["info"])
    assert reference["messages"][-1]["role"] == ours["messages"][-1]["role"] == "exit"
    assert set(reference["messages"][-1]["extra"]) == set(ours["messages"][-1]["extra"])
    from minisweagent.run.utilities.inspector import _messages_to_steps

    # Its inspector pages the file as one step per model call.
    assert [len(step) for step in _messages_to_steps(ours["messages"])] == [2, 2, 2]


def test_a_record_that_does_not_parse_is_left_out_of_a_search_and_named_by_key(
        stored, tmp_path, capsys) -> None:
    stored.put("attempt", "b" * 64, {"task_set": "s", "task_id": "t", "subject": "bad",
                                      "sample_idx": 0, "finished": 9e9})  # newest; no patch
    traj = export(stored, tmp_path, "--set", "s", "--agent", "bad", "--task", "t")
    assert traj["info"]["evaluator"]["attempt"] == "a" * 64
    assert main(["export", "traj", "--store", str(stored.root), "--key", "bbbb"]) == 2
    assert f"attempt record {'b' * 64}: field 'patch'" in capsys.readouterr().err
