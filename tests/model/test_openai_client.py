from __future__ import annotations

import logging
import socket
import threading

import pytest

from evaluator.errors import BadInputError, InfraError
from evaluator.model import (
    ContextLengthError,
    ModelRequestError,
    ModelUnavailableError,
    OpenAIClient,
)
from tests.model.support import CONTEXT_REFUSALS

SECRET = "sk-test-9f8e7d6c5b4a"


def test_success_returns_content_usage_and_cost(make_client, messages, endpoint) -> None:
    result = make_client().complete(messages, seed=3, temperature=0.0, max_tokens=64)
    assert result.content == "```bash\nls\n```" and result.fingerprint == "fp_real"
    assert result.timings is None and result.queue_s >= 0
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (1000, 500)
    assert result.cost_usd == pytest.approx((1000 * 2.0 + 500 * 8.0) / 1e6)
    assert result.priced and not result.simulated and result.latency_s > 0
    sent = endpoint.requests[0]["body"]
    assert sent == {
        "model": "m-1",
        "messages": messages,
        "temperature": 0.0,
        "seed": 3,
        "max_tokens": 64,
    }


def test_unknown_model_costs_zero_and_is_unpriced(make_client, messages) -> None:
    from evaluator.model import Prices

    result = make_client(prices=Prices()).complete(messages, seed=0, temperature=0.0)
    assert (result.cost_usd, result.priced) == (0.0, False)


def test_retry_after_is_honoured_on_429(make_client, messages, endpoint, sleeps) -> None:
    endpoint.script("429:7", "503:2", "ok")
    client = make_client()
    assert client.complete(messages, seed=0, temperature=0.0).content
    assert sleeps == [7.0, 2.0]
    assert client.stats.by_cause == {"rate_limited": 1, "server_error": 1}


def test_retry_after_is_capped_by_backoff_max(make_client, messages, endpoint, sleeps) -> None:
    endpoint.script("429:100", "ok")
    make_client(backoff_max_s=5.0).complete(messages, seed=0, temperature=0.0)
    assert sleeps == [5.0]


@pytest.mark.parametrize(
    ("fault", "cause"),
    [
        ("500", "server_error"),
        ("malformed", "malformed_body"),
        ("nochoices", "malformed_body"),
        ("drop", "disconnect"),
    ],
)
def test_transient_fault_is_retried(make_client, messages, endpoint, sleeps, fault, cause) -> None:
    endpoint.script(fault, "ok")
    client = make_client(backoff_base_s=0.5)
    assert client.complete(messages, seed=0, temperature=0.0).content
    assert len(endpoint.requests) == 2 and len(sleeps) == 1 and 0 <= sleeps[0] <= 0.5
    assert client.stats.by_cause == {cause: 1} and client.stats.retries == 1


def test_timeout_is_retried(make_client, messages, endpoint) -> None:
    endpoint.script("slow", "ok")
    client = make_client(timeout_s=0.2)
    assert client.complete(messages, seed=0, temperature=0.0).content
    assert client.stats.by_cause == {"timeout": 1}


def test_connection_refused_then_endpoint_comes_up(make_client, messages, endpoint_at) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started: list[object] = []

    def sleep_then_start(_: float) -> None:
        if not started:
            started.append(endpoint_at(port))

    client = make_client(base_url=f"http://127.0.0.1:{port}/v1", sleep=sleep_then_start)
    assert client.complete(messages, seed=0, temperature=0.0).content
    assert client.stats.by_cause == {"connect_error": 1}


def test_gives_up_after_budget(make_client, messages, endpoint, sleeps) -> None:
    endpoint.script(*["500"] * 10)
    with pytest.raises(ModelUnavailableError) as info:
        make_client(max_retries=3, backoff_base_s=1.0).complete(messages, seed=0, temperature=0)
    assert isinstance(info.value, InfraError) and len(endpoint.requests) == 4
    assert endpoint.base_url in str(info.value) and "HTTP 500" in str(info.value)
    assert all(0 <= s <= 1.0 * 2**i for i, s in enumerate(sleeps)) and len(sleeps) == 3


def test_400_is_not_retried(make_client, messages, endpoint, sleeps) -> None:
    endpoint.script("400")
    with pytest.raises(ModelRequestError) as info:
        make_client().complete(messages, seed=0, temperature=0.0)
    assert isinstance(info.value, BadInputError) and info.value.status == 400
    assert "HTTP 400" in str(info.value) and "model id 'm-1'" in str(info.value)
    assert len(endpoint.requests) == 1 and sleeps == []


def test_a_trickling_stream_is_ended_at_the_step_timeout(make_client, messages, endpoint) -> None:
    """Each event comes well within the read timeout; the whole reply does not come within
    timeout_s, and that is the step's bound (the old client waited the stream out)."""
    endpoint.script("trickle", "ok")
    client = make_client(timeout_s=0.5)
    reply = client.complete(messages, seed=0, temperature=0.0, stream=True)
    assert reply.content and client.stats.by_cause == {"timeout": 1}


@pytest.mark.parametrize("server", sorted(CONTEXT_REFUSALS))
def test_a_context_length_refusal_is_told_apart_in_each_servers_words(
        make_client, messages, endpoint, sleeps, server) -> None:
    endpoint.script(f"ctx:{server}")
    with pytest.raises(ContextLengthError) as info:
        make_client().complete(messages, seed=0, temperature=0.0)
    assert isinstance(info.value, ModelRequestError) and info.value.status == 400
    assert "context window" in str(info.value) and len(endpoint.requests) == 1 and sleeps == []


def test_another_400_is_not_a_context_refusal(make_client, messages, endpoint) -> None:
    endpoint.script("400")
    with pytest.raises(ModelRequestError) as info:
        make_client().complete(messages, seed=0, temperature=0.0)
    assert not isinstance(info.value, ContextLengthError)


def test_in_flight_bound_is_shared_by_clients_of_an_endpoint(make_client, messages, endpoint):
    endpoint.hold_s = 0.05
    clients = [make_client(max_in_flight=4), make_client(max_in_flight=4)]
    threads = [
        threading.Thread(
            target=clients[i % 2].complete, args=(messages,), kwargs={"seed": i, "temperature": 0.0}
        )
        for i in range(16)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(endpoint.requests) == 16 and endpoint.max_in_flight == 4


def test_injected_limiter_replaces_the_semaphore(make_client, messages) -> None:
    entered: list[int] = []

    def limiter() -> threading.Lock:
        entered.append(1)
        return threading.Lock()

    make_client(limiter=limiter).complete(messages, seed=0, temperature=0.0)
    assert entered == [1]


def test_api_key_is_sent_but_never_leaks(make_client, messages, endpoint, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("SIM_KEY", SECRET)
    client = make_client(api_key_env="SIM_KEY", max_retries=1)
    client.complete(messages, seed=0, temperature=0.0)
    assert endpoint.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    endpoint.script("401", "500", "500")  # the 401 body echoes the Authorization header
    with pytest.raises(ModelRequestError) as refused:
        client.complete(messages, seed=0, temperature=0.0)
    with pytest.raises(ModelUnavailableError) as unavailable:
        client.complete(messages, seed=0, temperature=0.0)
    assert "SIM_KEY" in str(refused.value)
    for info in (refused, unavailable):
        assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    assert SECRET not in caplog.text and SECRET not in repr(client) and "SIM_KEY" in repr(client)


def test_missing_key_variable_is_bad_input(make_client, messages, monkeypatch) -> None:
    monkeypatch.delenv("SIM_KEY_UNSET", raising=False)
    with pytest.raises(BadInputError, match="SIM_KEY_UNSET"):
        make_client(api_key_env="SIM_KEY_UNSET").complete(messages, seed=0, temperature=0.0)


def test_client_satisfies_protocol() -> None:
    from evaluator.model import ModelClient

    assert isinstance(OpenAIClient("http://127.0.0.1:9/v1", "m", max_in_flight=4), ModelClient)
