"""The agent's own process sees neither the answers, the store, Docker, the network nor the key."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

import pytest

from evaluator.attempts import drive_agent
from evaluator.model import ScriptedModel
from tests.attempts.test_limits import FakeSandbox, agent
from tests.helpers import unavailable

SECRET = "sk-isolation-test-0b7f"


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("EVAL_STORE", str(tmp_path / "store"))
    (tmp_path / "tasks" / "t1").mkdir(parents=True)
    (tmp_path / "tasks" / "t1" / "gold.patch").write_text("+the answer\n")
    (tmp_path / "store").mkdir()
    listener = socket.create_server(("127.0.0.1", 0))
    yield {"files": [str(tmp_path / "tasks" / "t1" / "gold.patch")],
           "dirs": [str(tmp_path / "tasks"), str(tmp_path / "store")],
           "port": listener.getsockname()[1], "harness_pid": os.getpid()}
    listener.close()


def snoop(tmp_path: Path, targets: dict, isolation: str) -> str:
    steps: list[str] = []
    drive_agent(agent(tmp_path, "snoops", isolation=isolation), FakeSandbox(),
                ScriptedModel(["x"]), problem_statement=json.dumps(targets), workdir="/w",
                seed=0, record_step=lambda action, obs, extra: steps.append(obs))
    return steps[0]


def test_a_namespaced_agent_gets_nothing_it_reaches_for(tmp_path, targets) -> None:
    if shutil.which("bwrap") is None:
        unavailable("bubblewrap is not installed (apt-get install bubblewrap)")
    found = snoop(tmp_path, targets, "namespace")
    assert "GOT" not in found and "env " not in found and SECRET not in found, found
    assert found.count("denied") == 6


def test_a_process_agent_gets_a_clean_environment(tmp_path, targets) -> None:
    found = snoop(tmp_path, targets, "process")
    assert "env " not in found and SECRET not in found.split("harness environ")[0]
