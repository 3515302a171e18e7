"""The client speaks today's chat completions: tools, content parts, n, finish_reason, streaming."""

from __future__ import annotations

import pytest

from evaluator.model import Prices, ScriptedModel, ToolCall, Usage
from tests.model.support import TOOL_CALL

BASH = {"type": "function", "function": {"name": "bash", "parameters": {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}


def test_tools_go_out_and_tool_calls_come_back(make_client, messages, endpoint) -> None:
    endpoint.script("tools")
    reply = make_client().complete(messages, seed=0, temperature=0.0, tools=[BASH],
                                   tool_choice="auto", n=2)
    assert reply.tool_calls == (ToolCall("call_1", "bash", '{"command": "ls"}'),)
    assert reply.finish_reason == "tool_calls" and reply.content == ""
    assert [c.content for c in reply.choices] == [None, "done"]
    sent = endpoint.requests[0]["body"]
    assert (sent["tools"], sent["tool_choice"], sent["n"]) == ([BASH], "auto", 2)


def test_the_reply_message_goes_back_into_the_history_as_is(make_client, messages, endpoint) -> None:
    endpoint.script("tools", "ok")
    client = make_client()
    reply = client.complete(messages, seed=0, temperature=0.0, tools=[BASH])
    assert reply.message == {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}
    history = [*messages, reply.message,
               {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "a"}]}]
    client.complete(history, seed=0, temperature=0.0, tools=[BASH])
    assert endpoint.requests[1]["body"]["messages"] == history


def test_cached_tokens_are_counted_and_priced_apart(make_client, messages, endpoint) -> None:
    endpoint.script("tools")
    prices = Prices.from_mapping({"m-1": {"input_per_mtok": 2.0, "output_per_mtok": 8.0,
                                          "cached_input_per_mtok": 0.5}})
    reply = make_client(prices=prices).complete(messages, seed=0, temperature=0.0)
    assert reply.usage == Usage(1000, 500, cached_tokens=600)
    assert reply.cost_usd == pytest.approx((400 * 2.0 + 600 * 0.5 + 500 * 8.0) / 1e6)


def test_a_streamed_reply_is_assembled_whole(make_client, messages, endpoint) -> None:
    endpoint.script("sse")
    reply = make_client().complete(messages, seed=0, temperature=0.0, stream=True)
    assert reply.tool_calls == (ToolCall("call_1", "bash", '{"command": "ls"}'),)
    assert reply.choices[1].content == "done" and reply.usage.cached_tokens == 600
    assert endpoint.requests[0]["body"]["stream_options"] == {"include_usage": True}


def test_a_stream_cut_halfway_is_retried(make_client, messages, endpoint) -> None:
    endpoint.script("ssecut", "sse")
    client = make_client()
    assert client.complete(messages, seed=0, temperature=0.0, stream=True).tool_calls
    assert client.stats.by_cause == {"malformed_body": 1}


def test_missing_usage_is_marked_unreported_not_zero(make_client, messages, endpoint) -> None:
    endpoint.script("nousage")
    assert make_client().complete(messages, seed=0, temperature=0.0).usage.reported is False


def test_extra_fields_pass_through_but_cannot_override_the_client(make_client, messages,
                                                                   endpoint) -> None:
    client = make_client()
    client.complete(messages, seed=0, temperature=0.0, extra={"top_p": 0.5, "stop": ["x"]})
    assert endpoint.requests[0]["body"]["top_p"] == 0.5
    with pytest.raises(ValueError, match="model"):
        client.complete(messages, seed=0, temperature=0.0, extra={"model": "gpt-other"})


def test_scripted_model_plays_tool_calls() -> None:
    model = ScriptedModel([{"content": "hm", "tool_calls": [TOOL_CALL]}])
    reply = model.complete([{"role": "user", "content": "u"}], seed=0, temperature=0.0,
                           tools=[BASH], n=2)
    assert reply.finish_reason == "tool_calls" and len(reply.choices) == 2
    assert reply.tool_calls[0].name == "bash" and model.calls[0].tools == [BASH]
