"""An external agent in a throwaway package: entry module, a helper it imports, one it does not."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.agents.support import CODE, PROMPTS, ExtAgent, agent_yaml


@pytest.fixture
def ext(tmp_path: Path) -> ExtAgent:
    for rel, text in CODE.items():
        (tmp_path / "code" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "code" / rel).write_text(text)
    adir = tmp_path / "agents" / "ext"
    adir.mkdir(parents=True)
    for file, text in PROMPTS.items():
        (adir / file).write_text(text)
    (adir / "agent.yaml").write_text(yaml.safe_dump(agent_yaml()))
    return ExtAgent(tmp_path / "code", tmp_path / "agents", [])
