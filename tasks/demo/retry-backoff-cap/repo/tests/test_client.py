import pytest

from retrykit import Response, RetryError, RetryingClient, RetryPolicy, TransportError, no_jitter

POLICY = RetryPolicy(max_attempts=3, base_delay=0.5, max_delay=10, jitter=no_jitter)


def test_success_is_not_retried(transport, clock):
    t = transport([200])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.get("http://svc/ok").status == 200
    assert len(t.requests) == 1
    assert clock.sleeps == []


def test_retries_until_success(transport, clock):
    t = transport([503, 502, 200])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.get("http://svc/flaky").ok
    assert clock.sleeps == [0.5, 1.0]
    assert [e.status for e in client.history] == [503, 502]


def test_gives_up_after_max_attempts(transport, clock):
    t = transport([500])
    client = RetryingClient(t, POLICY, clock=clock)
    with pytest.raises(RetryError) as info:
        client.get("http://svc/down")
    assert info.value.attempts == 3
    assert info.value.last_response.status == 500
    assert len(t.requests) == 3
    assert len(clock.sleeps) == 2


def test_post_is_not_retried(transport, clock, conn_reset):
    t = transport([503])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.post("http://svc/orders").status == 503
    t = transport([conn_reset])
    with pytest.raises(TransportError):
        RetryingClient(t, POLICY, clock=clock).post("http://svc/orders")
    assert clock.sleeps == []


def test_transport_errors_are_retried(transport, clock, conn_reset):
    t = transport([conn_reset, 200])
    events = []
    client = RetryingClient(t, POLICY, clock=clock, on_retry=events.append)
    assert client.get("http://svc/x").status == 200
    assert events[0].error.startswith("TransportError")
    assert clock.sleeps == [0.5]


def test_retry_after_seconds_is_honoured(transport, clock):
    t = transport([Response(429, {"Retry-After": "4"}), 200])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.get("http://svc/limited").ok
    assert clock.sleeps == [4.0]
