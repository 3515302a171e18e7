"""Shared by the agents tests: an agent folder outside the repository, its config and code, and a
fake installed distribution."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

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


def fake_distribution(root: Path, name: str, version: str, module: str | None = None) -> Path:
    """An installed distribution as importlib.metadata sees it: a dist-info folder, and with
    `module` a module `<module>.py` its RECORD says it owns."""
    info = root / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if module is not None:
        (root / f"{module}.py").write_text(f"VERSION = {version!r}\n")
        (info / "RECORD").write_text(f"{module}.py,,\n{info.name}/METADATA,,\n")
    return info
