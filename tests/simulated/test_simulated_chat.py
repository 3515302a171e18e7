"""The simulated endpoint speaks tools, n, streaming and content parts, and refuses the rest."""

from __future__ import annotations

import json

import httpx
import pytest

from evaluator.model import OpenAIClient
from evaluator.simulated import SUBMIT
from tests.helpers import unavailable
from tests.simulated.support import PROBLEM

BASH = {"type": "function", "function": {"name": "bash", "parameters": {
    "type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}


def test_offered_tools_get_the_trajectory_as_tool_calls(endpoint, chat) -> None:
    choice = chat(endpoint.base_url, tools=[BASH]).json()["choices"][0]
    call = choice["message"]["tool_calls"][0]
    assert choice["finish_reason"] == "tool_calls" and call["function"]["name"] == "bash"
    assert json.loads(call["function"]["arguments"]) == {"command": "ls"}
    assert choice["message"]["content"].startswith("THOUGHT: [simulated plan:")


def test_a_tool_conversation_plays_to_the_submit(endpoint) -> None:
    history = [{"role": "user", "content": [{"type": "text", "text": PROBLEM}]}]
    with OpenAIClient(endpoint.base_url, "sim-strong") as client:
        for _ in range(8):
            reply = client.complete(history, seed=0, temperature=0.0, tools=[BASH])
            command = json.loads(reply.tool_calls[0].arguments)["command"]
            if command == SUBMIT:
                break
            history += [reply.message, {"role": "tool", "tool_call_id": reply.tool_calls[0].id,
                                        "content": "<returncode>0</returncode>"}]
    assert command == SUBMIT and len(history) > 3


def test_n_gives_that_many_choices(endpoint, chat) -> None:
    body = chat(endpoint.base_url, n=3).json()
    assert [c["index"] for c in body["choices"]] == [0, 1, 2]


def test_stream_is_server_sent_events_with_usage(endpoint, chat) -> None:
    plain = chat(endpoint.base_url, tools=[BASH]).json()
    with OpenAIClient(endpoint.base_url, "sim-strong") as client:
        asked = [{"role": "system", "content": "You are a coding agent."},
                 {"role": "user", "content": f"{PROBLEM}\n\nWorking directory: /testbed"}]
        streamed = client.complete(asked, seed=0, temperature=0.0, tools=[BASH], stream=True)
    assert streamed.message == plain["choices"][0]["message"]
    assert streamed.usage.completion_tokens == plain["usage"]["completion_tokens"]
    raw = chat(endpoint.base_url, stream=True)
    assert raw.headers["content-type"] == "text/event-stream"
    assert raw.text.endswith("data: [DONE]\n\n")


@pytest.mark.parametrize(("extra", "param"), [
    ({"logprobs": True}, "logprobs"),
    ({"response_format": {"type": "json_object"}}, "response_format"),
    ({"tools": [{"type": "function", "function": {"name": "think"}}]}, "tools"),
    ({"n": 20}, "n"),
    ({"stream_options": {"include_usage": True}}, "stream_options"),
])
def test_what_it_cannot_honour_is_refused_openai_style(endpoint, chat, extra, param) -> None:
    response = chat(endpoint.base_url, **extra)
    error = response.json()["error"]
    assert response.status_code == 400 and error["param"] == param
    assert error["type"] == "invalid_request_error" and error["message"]


def test_image_parts_are_refused(endpoint, http) -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    body = {"model": "sim-weak", "messages": [{"role": "user", "content": [image]}]}
    response = http.post(f"{endpoint.base_url}/chat/completions", json=body)
    assert response.status_code == 400 and "text content parts" in response.json()["error"]["message"]


@pytest.fixture
def sdk():
    try:
        import openai
    except ImportError:
        unavailable("the openai SDK is not installed (requirements-dev.lock)")
    return openai


def test_the_openai_sdk_round_trips_tool_calls(endpoint, sdk) -> None:
    client = sdk.OpenAI(base_url=endpoint.base_url, api_key="unused", max_retries=0,
                        http_client=httpx.Client(timeout=10))
    messages = [{"role": "user", "content": PROBLEM}]
    first = client.chat.completions.create(model="sim-strong", messages=messages, tools=[BASH],
                                           seed=0)
    call = first.choices[0].message.tool_calls[0]
    messages += [first.choices[0].message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "ok"}]
    stream = client.chat.completions.create(model="sim-strong", messages=messages, tools=[BASH],
                                            seed=0, stream=True,
                                            stream_options={"include_usage": True})
    chunks = list(stream)
    assert first.system_fingerprint == "evaluator-simulated" and call.function.name == "bash"
    assert chunks[-1].usage.completion_tokens > 0
    with pytest.raises(sdk.BadRequestError, match="logprobs"):
        client.chat.completions.create(model="sim-strong", messages=messages, logprobs=True)
