import random

from retrykit import Response, RetryingClient, RetryPolicy, equal_jitter, full_jitter, no_jitter

POLICY = RetryPolicy(max_attempts=4, base_delay=1, max_delay=10, jitter=no_jitter)


def test_retry_after_seconds_is_capped_at_max_delay(transport, clock):
    t = transport([Response(503, {"Retry-After": "3600"}), 200])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.get("http://svc/maintenance").ok
    assert clock.sleeps == [10.0]
    assert client.history[0].delay == 10.0


def test_retry_after_http_date_is_capped_at_max_delay(transport, clock):
    # FakeClock starts at 2023-11-14 22:13:20 UTC; the server asks for one hour.
    t = transport([Response(429, {"retry-after": "Tue, 14 Nov 2023 23:13:20 GMT"}), 429, 200])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.get("http://svc/limited").ok
    assert clock.sleeps == [10.0, 2.0]


def test_delay_for_never_exceeds_max_delay(rng):
    for jitter in (no_jitter, full_jitter, equal_jitter):
        policy = RetryPolicy(base_delay=0.5, max_delay=5, jitter=jitter)
        for retry_number in range(1, 8):
            assert policy.delay_for(retry_number, rng, retry_after=120.0) == 5.0


def test_retry_after_shorter_than_backoff_keeps_backoff(transport, clock):
    t = transport([503, 503, Response(503, {"Retry-After": "1"}), 200])
    client = RetryingClient(t, POLICY, clock=clock)
    assert client.get("http://svc/flaky").ok
    assert clock.sleeps == [1.0, 2.0, 4.0]


def test_backoff_sleeps_are_capped_without_retry_after(transport, clock):
    policy = RetryPolicy(max_attempts=8, base_delay=1, max_delay=6, jitter=equal_jitter)
    t = transport([500] * 7 + [200])
    client = RetryingClient(t, policy, clock=clock, rng=random.Random(99))
    assert client.get("http://svc/down").ok
    assert len(clock.sleeps) == 7
    assert all(s <= 6.0 for s in clock.sleeps)
    assert clock.sleeps[-1] >= 3.0
