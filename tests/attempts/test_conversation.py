"""The conversation is recorded by the harness from what passed through its client."""

from __future__ import annotations

import json

from evaluator.attempts import Conversation, drive_agent, thread_messages
from evaluator.model import Completion, ScriptedModel, Usage
from evaluator.simulated import SUBMIT
from evaluator.store import Store
from tests.attempts.support import FakeSandbox, agent, call

SCRIPT = [call("c1", "ls"), call("c2", SUBMIT)]


def test_a_tool_calling_attempt_keeps_every_message_in_order(tmp_path) -> None:
    out = drive_agent(agent(tmp_path, "tests.attempts.toolcall_agent:run", price="free"),
                      FakeSandbox(), ScriptedModel(SCRIPT), problem_statement="fix calc",
                      workdir="/w", seed=0, record_step=lambda *a: None)
    doc = json.loads(out.conversation.to_json())
    roles = [m["role"] for m in thread_messages(doc)]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert thread_messages(doc)[1]["content"] == [{"type": "text", "text": "fix calc"}]
    assert thread_messages(doc)[3]["tool_call_id"] == "c1"
    assert len(doc["calls"]) == len(out.meter.calls) == 2
    assert doc["calls"][1]["request"] == [0, 1, 2, 3] and doc["calls"][0]["tools"] == 0
    assert doc["calls"][0]["params"]["stream"] is True
    assert len(doc["messages"]) == 5  # a resent history is kept once


def test_a_rewritten_history_is_recorded_as_it_was_sent() -> None:
    conv = Conversation()
    reply = Completion("ok", Usage(1, 1), 0.0, "m", True, 0.0)
    conv.add([{"role": "user", "content": "a"}], None, reply)
    conv.add([{"role": "user", "content": "summary"}], None, reply)
    assert [m["content"] for m in thread_messages(conv.document())] == ["summary", "ok"]
    assert conv.calls[0]["request"] == [0] and conv.calls[1]["request"] == [2]


def test_an_unpriced_reply_records_its_cost_as_unknown() -> None:
    conv = Conversation()
    conv.add([{"role": "user", "content": "a"}], None,
             Completion("ok", Usage(1, 1), 0.0, "m", False, 0.0, priced=False))
    assert conv.calls[0]["cost_usd"] is None


def test_a_running_attempt_has_a_live_copy_in_the_store(tmp_path) -> None:
    store = Store(tmp_path / "store")
    conv = Conversation("k" * 64, store)
    conv.add([{"role": "user", "content": "a"}], None,
             Completion("ok", Usage(1, 1), 0.0, "m", True, 0.0))
    live = json.loads((store.root / "conversations" / f"{'k' * 64}.json").read_bytes())
    assert live["thread"] == [0, 1]
