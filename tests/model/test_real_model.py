"""The model tier's promises against a real server with a real model (inference/server.mjs,
llama.cpp with SmolLM2-135M-Instruct): what the records say is what a real server said."""

from __future__ import annotations

import threading

import pytest

from evaluator.agents import ContextLimit, LimitSpec
from evaluator.attempts import Meter, MeteredModel
from evaluator.errors import BadInputError
from evaluator.inference import MODEL_ID, ServerOptions
from evaluator.model import Completion, ContextLengthError, ModelUnavailableError
from tests.model.real import ASK, ESSAY, PRICES, at_once, client, real_server, settled


def test_usage_and_cost_are_the_servers_own_counts(real_model) -> None:
    with client(real_model) as c:
        short = c.complete(ASK, seed=1, temperature=0.0, max_tokens=24)
        longer = c.complete([ASK[0], {"role": "user", "content": ASK[1]["content"] + " x" * 100}],
                            seed=1, temperature=0.0, max_tokens=24)
    for reply in (short, longer):
        u, t = reply.usage, reply.timings
        assert u.reported and not reply.simulated and reply.model == MODEL_ID
        assert reply.fingerprint and reply.fingerprint.startswith("node-llama-cpp-")
        # The server's usage and its own timings count the same tokens it evaluated.
        assert t is not None and (t["prompt_n"], t["predicted_n"]) == (u.prompt_tokens,
                                                                      u.completion_tokens)
        assert 0 < u.completion_tokens <= 24 and t["predicted_ms"] > 0 and t["prompt_ms"] > 0
        assert reply.cost_usd == pytest.approx(PRICES.cost(MODEL_ID, u)[0]) and reply.priced
        assert reply.cost_usd == pytest.approx((u.prompt_tokens * 0.02
                                                + u.completion_tokens * 0.04) / 1e6)
    # A hundred more words are at least a hundred more tokens of the model's own tokenizer.
    assert longer.usage.prompt_tokens - short.usage.prompt_tokens >= 100


def test_temperature_zero_is_reproducible_and_a_seed_pins_sampling(real_model) -> None:
    with client(real_model) as c:
        greedy = [c.complete(ASK, seed=s, temperature=0.0, max_tokens=32) for s in (1, 2)]
        sampled = [c.complete(ASK, seed=7, temperature=0.9, max_tokens=32) for _ in range(2)]
        other = c.complete(ASK, seed=8, temperature=0.9, max_tokens=32)
    assert greedy[0].content and greedy[0].content == greedy[1].content
    assert greedy[0].usage == greedy[1].usage and greedy[0].finish_reason == greedy[1].finish_reason
    assert sampled[0].content == sampled[1].content and sampled[0].usage == sampled[1].usage
    assert other.content != sampled[0].content  # the seed is really sent and used


@pytest.mark.parametrize("max_tokens", [16, 200])
def test_streaming_and_non_streaming_agree(real_model, max_tokens) -> None:
    with client(real_model) as c:
        whole = c.complete(ASK, seed=3, temperature=0.0, max_tokens=max_tokens)
        streamed = c.complete(ASK, seed=3, temperature=0.0, max_tokens=max_tokens, stream=True)
    assert (streamed.content, streamed.finish_reason, streamed.usage) == (
        whole.content, whole.finish_reason, whole.usage)
    assert whole.finish_reason == ("length" if max_tokens == 16 else "stop")
    assert streamed.timings is not None and streamed.timings["predicted_n"] == \
        whole.usage.completion_tokens


def test_tool_calls_come_back_as_the_api_shapes_them(real_model) -> None:
    bash = {"type": "function", "function": {
        "name": "bash", "description": "Run a bash command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                       "required": ["command"]}}}
    with client(real_model) as c:
        replies = [c.complete(ASK, seed=4, temperature=0.0, max_tokens=120, tools=[bash],
                              tool_choice="auto", stream=s) for s in (False, True)]
    assert replies[0].tool_calls and replies[0].finish_reason == "tool_calls"
    assert [(t.name, t.arguments) for t in replies[0].tool_calls] == [
        (t.name, t.arguments) for t in replies[1].tool_calls]
    assert replies[0].tool_calls[0].name == "bash" and '"command"' in replies[0].tool_calls[0].arguments


@pytest.mark.parametrize("stream", [False, True])
def test_the_step_timeout_bounds_a_whole_reply_and_frees_the_slot(real_model, stream) -> None:
    """A streamed reply sends a token every few milliseconds, so no read ever times out: the
    client's deadline for the whole step ends it, and the server stops when it hangs up."""
    before = real_model.stats()
    with client(real_model, timeout_s=0.4, max_retries=1, backoff_base_s=0.01) as c:
        with pytest.raises(ModelUnavailableError, match="timeout") as info:
            c.complete(ESSAY, seed=0, temperature=0.0, max_tokens=600, stream=stream)
        assert c.stats.by_cause == {"timeout": 2} and c.stats.completions == 0
    assert info.value.attempts == 2
    with client(real_model) as c:
        assert c.complete(ASK, seed=1, temperature=0.0, max_tokens=8).usage.completion_tokens
    after = settled(real_model, lambda s: s["aborted"] - before["aborted"] == 2 and not s["busy"])
    assert after["aborted"] - before["aborted"] == 2 and after["busy"] == 0


def test_the_admission_bound_queues_in_the_harness_and_the_server_is_never_overloaded(
        real_model) -> None:
    """Six requests, a bound of two in flight, a server of two slots: four wait in the
    harness, each records how long, and none waits or is refused at the server."""
    bound = threading.BoundedSemaphore(2)
    before = real_model.stats()
    with client(real_model, limiter=lambda: bound) as c:
        replies = at_once([lambda i=i: c.complete(ASK, seed=i, temperature=0.0, max_tokens=16)
                           for i in range(6)])
    assert all(isinstance(r, Completion) for r in replies), replies
    done = [r for r in replies if isinstance(r, Completion)]
    after = real_model.stats()
    assert after["waited"] == before["waited"] and after["refused"] == before["refused"]
    assert after["served"] - before["served"] == 6
    # Four of the six waited for a permit, which a whole reply of another had to give back.
    waited = sorted(r.queue_s for r in done)[-4:]
    assert min(waited) >= min(r.latency_s for r in done) / 2, [(r.queue_s, r.latency_s) for r in done]


def test_more_requests_than_slots_queue_at_the_server_and_are_all_answered(real_model) -> None:
    before = real_model.stats()
    with client(real_model) as c:
        replies = at_once([lambda i=i: c.complete(ASK, seed=i, temperature=0.0, max_tokens=16)
                           for i in range(5)])
    assert all(isinstance(r, Completion) for r in replies), replies
    after = real_model.stats()
    # Two generate, the others wait their turn at the server, none is turned away.
    assert after["max_busy"] == 2 and after["waited"] - before["waited"] >= 1
    assert after["served"] - before["served"] == 5 and after["refused"] == before["refused"]
    # The server's own queue age is in its timings, as it reported it.
    assert max(r.timings["queue_ms"] for r in replies if isinstance(r, Completion)) > 0


def test_503_while_loading_and_429_when_full_are_retried_with_backoff() -> None:
    """A server answers 503 "Loading model" until its model is in memory, and 429 with
    Retry-After past its one slot and empty queue; the client waits and tries again."""
    with real_server(ServerOptions(slots=1, queue=0), load_timeout_s=None) as server:
        with client(server, max_retries=600, backoff_base_s=0.05, backoff_max_s=0.2) as c:
            first = c.complete(ASK, seed=1, temperature=0.0, max_tokens=8)
            loading = dict(c.stats.by_cause)
            replies = at_once([lambda i=i: c.complete(ASK, seed=i, temperature=0.0,
                                                      max_tokens=24) for i in range(3)])
            full = {k: v - loading.get(k, 0) for k, v in c.stats.by_cause.items()}
        stats = server.stats()
    assert first.usage.completion_tokens and loading.get("server_error", 0) >= 1
    assert all(isinstance(r, Completion) for r in replies), replies
    assert full.get("rate_limited", 0) >= 1 and stats["refused"] == full["rate_limited"]
    assert stats["max_busy"] == 1 and stats["served"] == 4


def test_a_context_length_refusal_is_the_agents_end_not_an_infra_error(real_model) -> None:
    too_long = [{"role": "user", "content": "word " * 3000}]
    with client(real_model, max_retries=3) as c:
        with pytest.raises(ContextLengthError) as info:
            c.complete(too_long, seed=0, temperature=0.0, max_tokens=8)
        assert c.stats.requests == 1  # refused once, never retried
    assert isinstance(info.value, BadInputError) and info.value.status == 400
    assert "exceeds the available context size" in str(info.value)
    meter = Meter(LimitSpec(max_steps=5), price="table")
    with client(real_model) as c:
        metered = MeteredModel(c, meter)
        metered.complete(ASK, seed=0, temperature=0.0, max_tokens=8)
        with pytest.raises(ContextLimit):
            metered.complete(too_long, seed=0, temperature=0.0, max_tokens=8)
    assert meter.ended is not None and meter.ended.exit_reason == "context_length"
    assert len(meter.calls) == 1 and meter.calls[0]["timings"]["prompt_n"] == \
        meter.calls[0]["prompt_tokens"] and meter.calls[0]["queue_s"] >= 0
