"""Shared by the tests that drive an agent: a sandbox that records what it was asked, a
throwaway agent, a drive with defaults, a tool call."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from evaluator.agents import Agent, load_agent
from evaluator.attempts import AttemptRun, drive_agent
from evaluator.model import ScriptedModel
from evaluator.sandbox import ExecResult
from evaluator.store import Store

PROMPTS = {"system.j2": "s\n", "instance.j2": "i\n", "format_error.j2": "f\n"}


class FakeSandbox:
    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def exec(self, cmd: str, *, timeout_s: float | None = None, **_: object) -> ExecResult:
        self.timeouts.append(timeout_s)
        return ExecResult(0, "", False, False, 0.0)


def agent(tmp_path: Path, entry: str, price: str = "table", isolation: str = "process",
          **limits: object) -> Agent:
    adir = tmp_path / "agents" / "bad"
    adir.mkdir(parents=True, exist_ok=True)
    for name, text in PROMPTS.items():
        (adir / name).write_text(text)
    (adir / "agent.yaml").write_text(yaml.safe_dump({
        "name": "bad", "entry_point": entry if ":" in entry
        else f"tests.attempts.misbehaving_agents:{entry}",
        "model": {"endpoint": "simulated", "id": "m", "price": price},
        "prompts": {"system": "system.j2", "instance": "instance.j2",
                    "format_error": "format_error.j2"}, "limits": limits,
        "isolation": isolation}))
    return load_agent("bad", tmp_path / "agents")


def drive(a: Agent, model=None, sandbox=None, **kw):
    return drive_agent(a, sandbox or FakeSandbox(), model or ScriptedModel(lambda m: "hi", cost_usd=0.01),
                       problem_statement="p", workdir="/w", seed=0,
                       record_step=lambda *args: None, **kw)


def call(cid: str, command: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": cid, "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": command})}}]}


REPO = Path(__file__).resolve().parents[2]


def bash(cmd: str) -> str:
    return f"Let me look.\n```bash\n{cmd}\n```"


def observations(store: Store, rec: AttemptRun) -> list[str]:
    steps = json.loads(store.get_blob(rec.trajectory))["steps"]
    return [store.get_blob(s["observation"]).decode() for s in steps]
