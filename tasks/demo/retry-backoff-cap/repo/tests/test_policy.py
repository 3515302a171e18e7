import random

import pytest

from retrykit import RetryPolicy, equal_jitter, full_jitter, no_jitter


def test_backoff_grows_exponentially_and_is_capped(rng):
    policy = RetryPolicy(base_delay=0.5, multiplier=2, max_delay=3, jitter=no_jitter)
    assert [policy.backoff(n, rng) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_full_jitter_stays_within_bounds(rng):
    policy = RetryPolicy(base_delay=1, max_delay=8, jitter=full_jitter)
    for n in range(1, 10):
        assert 0.0 <= policy.backoff(n, rng) <= min(8, 2 ** (n - 1))


def test_equal_jitter_stays_within_bounds():
    rng = random.Random(7)
    for _ in range(100):
        assert 2.0 <= equal_jitter(4.0, rng) <= 4.0


def test_invalid_policies_rejected():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(multiplier=0.5)
    assert RetryPolicy(retry_methods={"get"}).is_retryable_method("GET")


def test_short_retry_after_extends_backoff(rng):
    policy = RetryPolicy(base_delay=1, max_delay=30, jitter=no_jitter)
    assert policy.delay_for(1, rng, retry_after=7.0) == 7.0
    assert policy.delay_for(1, rng) == 1.0
