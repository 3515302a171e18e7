"""The `reference-agent` contract: what the bundled bash-only loop sends to its model and makes
of each command's result (the observation: exit code, a timeout's note, output cut to head and
tail), of replies without exactly one bash block, and of the submit command, for a fixed script
of replies and command results, as recorded for its version. The sandbox here answers from a
table, so only the loop's own behaviour is pinned (the sandbox's is the `sandbox` contract's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evaluator.agents import SUBMIT, load_agent
from evaluator.attempts import drive_agent
from evaluator.model import ScriptedModel
from evaluator.sandbox import ExecResult
from tests.contracts.golden import check

PROMPTS = {"system.j2": "You fix bugs. End with `{{ submit }}`.\n",
           "instance.j2": "In {{ workdir }}:\n{{ problem_statement }}\n",
           "format_error.j2": "Reply with exactly one bash block; `{{ submit }}` to finish.\n"}
LONG = "".join(f"line {i}\n" for i in range(1, 400))
RESULTS = {"ls": ExecResult(0, "calc\ntests\n", False, False, 0.1),
           "cat calc/ops.py": ExecResult(0, LONG, False, False, 0.1),
           "python -m pytest -q": ExecResult(1, "1 failed\n", False, False, 2.0),
           "sleep 100": ExecResult(137, "partial\n", True, False, 5.0),
           "false": ExecResult(1, "", False, False, 0.1)}
REPLIES = ["I will look around.\n```bash\nls\n```",
           "```bash\ncat calc/ops.py\n```",
           "No command in this reply.",
           "Two at once:\n```bash\nls\n```\n```bash\nfalse\n```",
           "```bash\npython -m pytest -q\n```",
           "```bash\nsleep 100\n```",
           "```bash\n\n```",
           f"Done.\n```bash\n{SUBMIT}\n```"]


class TableSandbox:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def exec(self, cmd: str, *, timeout_s: float | None = None, **kw: Any) -> ExecResult:
        self.calls.append([cmd, timeout_s])
        return RESULTS.get(cmd, ExecResult(127, f"sh: {cmd}: not found\n", False, False, 0.0))


def test_the_reference_loop_does_what_its_contract_recorded(tmp_path: Path) -> None:
    adir = tmp_path / "agents" / "ref"
    adir.mkdir(parents=True)
    for name, text in PROMPTS.items():
        (adir / name).write_text(text)
    (adir / "agent.yaml").write_text(yaml.safe_dump({
        "name": "ref", "entry_point": "evaluator.agents:reference_agent",
        "model": {"endpoint": "simulated", "id": "m", "price": "free"},
        "sampling": {"temperature": 0.3, "seed": 11, "max_tokens": 500},
        "prompts": {"system": "system.j2", "instance": "instance.j2",
                    "format_error": "format_error.j2"},
        "limits": {"max_steps": 20, "command_timeout_s": 45, "max_format_errors": 4,
                   "output_head_chars": 120, "output_tail_chars": 100},
        "isolation": "process"}))
    agent = load_agent("ref", tmp_path / "agents")
    model, sandbox, steps = ScriptedModel(REPLIES), TableSandbox(), []
    out = drive_agent(agent, sandbox, model, problem_statement="add() subtracts.",
                      workdir="/testbed", seed=5, record_step=lambda *s: steps.append(list(s)))
    observed = {"exit_reason": out.exit_reason, "detail": out.detail,
                "calls": [{"messages": c.messages, "seed": c.seed, "temperature": c.temperature,
                           "max_tokens": c.max_tokens} for c in model.calls],
                "commands": sandbox.calls, "steps": steps}
    check("reference-agent", "scripted-attempt", observed)
