"""The reference agent and mini-swe-agent on the real model, through `doit eval`: real sandboxes,
a real server and a real model, recorded, keyed and graded like any attempt, labelled with the
real model's id, never simulated. A third agent whose prompt outgrows the model's context window
ends as its own outcome."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from evaluator.inference import MODEL_ID
from evaluator.store import Store
from tests.pipeline.support import REPO, Project

pytestmark = pytest.mark.docker

AGENT_ENDS = {"submitted", "step_limit", "format_errors", "returned", "context_length"}


def real_agent(project: Project, name: str, source: str, base_url: str, max_tokens: int) -> None:
    """A copy of the bundled agent `source` pointed at the real server, for two steps (the
    model's replies are long and its prompts grow: a few steps are minutes on a busy CPU)."""
    adir = project.root / "agents" / name
    shutil.copytree(REPO / "agents" / source, adir)
    spec = yaml.safe_load((adir / "agent.yaml").read_text())
    spec["name"] = name
    spec["model"] = {"endpoint": base_url, "id": MODEL_ID, "max_retries": 2, "timeout_s": 120}
    spec["sampling"].update(max_tokens=max_tokens)
    spec["limits"].update(max_steps=2)
    (adir / "agent.yaml").write_text(yaml.safe_dump(spec))


def test_real_agents_through_doit_eval_record_what_the_server_said(gated: Project,
                                                                    real_model) -> None:
    real_agent(gated, "ref-real", "reference-strong", real_model.base_url, 48)
    # A bash tool call written whole is about 40 tokens of the grammar's JSON.
    real_agent(gated, "mswea-real", "mini-swe-agent", real_model.base_url, 64)
    real_agent(gated, "ref-overflow", "reference-strong", real_model.base_url, 48)
    instance = gated.root / "agents" / "ref-overflow" / "instance.j2"
    instance.write_text(instance.read_text() + "\nRead the whole repository first. " * 600)
    gated.eval_config(agents=["ref-real", "mswea-real", "ref-overflow"], baseline="ref-real")
    out = gated.doit("-n", "2", "-P", "process", "eval:mini")
    assert out.returncode == 0, out.stdout + out.stderr
    store = Store(gated.root / "store")
    attempts = list(store.iter_records("attempt"))
    assert len(attempts) == 6 and len(list(store.iter_records("result"))) == 6
    assert not list(store.root.glob("errors/**/*.json"))
    for a in attempts:
        name = a["agent"]["name"]
        assert a["simulated"] is False and a["agent"]["model"] == MODEL_ID, a
        assert a["exit_reason"] in AGENT_ENDS, a
        conversation = json.loads(store.get_blob(a["conversation"]))
        calls = conversation["calls"]
        trajectory = json.loads(store.get_blob(a["trajectory"]))
        if name == "ref-overflow":  # refused at its first call: the agent's end, nothing paid
            assert a["exit_reason"] == "context_length" and not calls, a
            assert "exceeds the available context size" in a["exit_detail"]
            assert a["usage"]["model_calls"] == 0 and a["cost"]["model_usd"] == 0
            continue
        assert calls and a["usage"]["model_calls"] == len(calls) == len(trajectory["model_calls"])
        for call, metered in zip(calls, trajectory["model_calls"], strict=True):
            # The server's own words: its model id, fingerprint, token counts and timings.
            assert call["model"] == MODEL_ID and call["fingerprint"].startswith("node-llama-cpp-")
            assert call["usage"]["reported"] and call["timings"]["prompt_n"] == \
                call["usage"]["prompt_tokens"] == metered["prompt_tokens"]
            assert call["timings"]["predicted_n"] == call["usage"]["completion_tokens"]
            assert metered["timings"] == call["timings"] and metered["queue_s"] >= 0
            assert set(call["finish_reasons"]) <= {"stop", "length", "tool_calls"}
        usage = a["usage"]
        for k in ("prompt_tokens", "completion_tokens"):
            assert usage[k] == sum(c["usage"][k] for c in calls) > 0
        assert a["cost"]["model_usd"] == pytest.approx(
            (usage["prompt_tokens"] * 0.02 + usage["completion_tokens"] * 0.04) / 1e6, abs=1e-6)
        if name == "mswea-real":  # its bash tool was offered and the model's calls came back as such
            assert conversation["tools"] and any("tool_calls" in c["finish_reasons"] for c in calls)
