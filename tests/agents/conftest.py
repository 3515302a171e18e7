"""An external agent in a throwaway package: entry module, a helper it imports, one it does not."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from evaluator.agents import Agent, load_agent

PROMPTS = {"system.j2": "You fix bugs.\n", "instance.j2": "{{ problem_statement }}\n",
           "format_error.j2": "One bash block, please.\n"}
CODE = {
    "extagent/__init__.py": "",
    "extagent/entry.py": "import json\nimport yaml\nfrom extagent import helpers\n"
                         "from .tools import shell\n\n\ndef run(ctx):\n    helpers.go(ctx)\n",
    "extagent/helpers.py": "def go(ctx):\n    from extagent.late import later\n    return later\n",
    "extagent/late.py": "later = 1\n",
    "extagent/tools/__init__.py": "",
    "extagent/tools/shell.py": "def shell():\n    return 'sh'\n",
    "extagent/unrelated.py": "x = 1\n",
}


def agent_yaml(name: str = "ext", **model: object) -> dict[str, object]:
    return {"name": name, "entry_point": "extagent.entry:run",
            "model": {"endpoint": "simulated", "id": "sim-strong", **model},
            "prompts": {"system": "system.j2", "instance": "instance.j2",
                        "format_error": "format_error.j2"}}


@dataclass
class ExtAgent:
    code: Path
    agents: Path
    extra_path: list[str]

    def write(self, rel: str, text: str) -> None:
        (self.code / rel).write_text(text)

    def load(self) -> Agent:
        return load_agent("ext", self.agents, [str(self.code), *self.extra_path, *sys.path])


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


def fake_distribution(root: Path, name: str, version: str) -> Path:
    """An installed distribution as importlib.metadata sees it: a dist-info folder."""
    info = root / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return info
