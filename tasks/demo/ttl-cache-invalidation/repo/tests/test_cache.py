import pytest

from cachekit import MISSING, ManualClock, TTLCache


@pytest.fixture
def clock():
    return ManualClock()


def test_get_after_set(clock):
    cache = TTLCache(maxsize=4, ttl=10, clock=clock)
    cache.set("a", 1)
    assert cache.get("a") == 1
    assert "a" in cache
    assert cache.get("missing") is MISSING
    assert cache.get("missing", 0) == 0


def test_entries_expire_after_ttl(clock):
    cache = TTLCache(maxsize=4, ttl=10, clock=clock)
    cache.set("a", 1)
    cache.set("b", 2, ttl=30)
    clock.advance(10)
    assert cache.get("a") is MISSING
    assert cache.get("b") == 2
    assert cache.stats.expirations == 1


def test_lru_eviction_keeps_recently_read(clock):
    cache = TTLCache(maxsize=2, ttl=60, clock=clock)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.get("a")
    cache.set("c", 3)
    assert cache.keys() == ["a", "c"]
    assert cache.stats.evictions == 1


def test_delete_and_clear(clock):
    cache = TTLCache(maxsize=4, ttl=60, clock=clock)
    cache.set("a", 1)
    cache.set("b", 2)
    assert cache.delete("a") is True
    assert cache.delete("a") is False
    cache.clear()
    assert len(cache) == 0


def test_none_is_a_cacheable_value(clock):
    cache = TTLCache(maxsize=4, ttl=60, clock=clock)
    cache.set("a", None)
    assert cache.get("a") is None
    assert cache.stats.hits == 1
    assert cache.stats.hit_rate == 1.0
