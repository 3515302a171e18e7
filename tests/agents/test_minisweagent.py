"""The bundled mini-swe-agent: its own DefaultAgent, namespaced, over the harness's seams."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from evaluator.agents import load_agent
from evaluator.attempts import drive_agent, thread_messages
from evaluator.model import OpenAIClient, Prices, ScriptedModel
from evaluator.sandbox import ExecResult
from evaluator.simulated import trajectory_kind
from tests.attempts.support import FakeSandbox, call
from tests.simulated.support import PROBLEM

REPO = Path(__file__).resolve().parents[2]
SOLVING_SEED = next(s for s in range(100) if trajectory_kind("sim-strong", s, "calc-add", 0.7)
                    == "solve")


class EchoSandbox(FakeSandbox):
    """Answers `echo WORDS` as a shell would, every other command with nothing."""

    def exec(self, cmd: str, **kw: object) -> ExecResult:
        super().exec(cmd, **kw)
        first, _, rest = cmd.partition(" && ")
        out = first[5:] + "\n" if first.startswith("echo ") else ""
        if rest.startswith("printf "):
            out += rest[8:-1]
        return ExecResult(0, out, False, False, 0.0)


def bundled(tmp_path: Path, **settings: object):
    adir = tmp_path / "agents" / "mini-swe-agent"
    shutil.copytree(REPO / "agents" / "mini-swe-agent", adir)
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["settings"].update(settings)
    if shutil.which("bwrap") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("bubblewrap is not installed (apt-get install bubblewrap)", pytrace=False)
        spec["isolation"] = "process"
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))
    return load_agent("mini-swe-agent", tmp_path / "agents")


def test_it_plays_the_simulated_model_through_to_its_submission(tmp_path, endpoint) -> None:
    steps: list[str] = []
    prices = Prices.load(REPO / "evals" / "prices.yaml")
    with OpenAIClient(endpoint.base_url, "sim-strong", prices=prices) as model:
        out = drive_agent(bundled(tmp_path), EchoSandbox(), model, problem_statement=PROBLEM,
                          workdir="/w", seed=SOLVING_SEED,
                          record_step=lambda a, o, e: steps.append(a))
    assert out.exit_reason == "submitted" and out.submission is None, out.detail
    assert any(s.startswith("cat > /tmp/eval_fix.patch") for s in steps)
    doc = json.loads(out.conversation.to_json())
    roles = [m["role"] for m in thread_messages(doc)]
    assert roles[:3] == ["system", "user", "assistant"] and roles.count("tool") == len(steps) - 1
    assert doc["tools"][0][0]["function"]["name"] == "bash"
    assert out.meter.totals()["model_usd"] > 0 and doc["calls"][0]["params"]["stream"] is True


def test_its_submitted_output_is_the_patch_in_output_mode(tmp_path) -> None:
    patch = "diff --git a/x b/x\n"
    script = [call("c1", f"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && printf '{patch}'")]
    out = drive_agent(bundled(tmp_path, submission="output"), EchoSandbox(),
                      ScriptedModel(script, cost_usd=0.0), problem_statement="p", workdir="/w",
                      seed=0, record_step=lambda *a: None)
    assert (out.exit_reason, out.submission) == ("submitted", patch)


def test_replies_without_a_tool_call_end_as_format_errors(tmp_path) -> None:
    out = drive_agent(bundled(tmp_path), FakeSandbox(), ScriptedModel(["no tool"] * 5),
                      problem_statement="p", workdir="/w", seed=0, record_step=lambda *a: None)
    assert out.exit_reason == "format_errors" and len(out.meter.calls) == 3
