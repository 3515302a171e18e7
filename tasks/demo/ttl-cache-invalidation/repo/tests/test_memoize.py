import pytest

from cachekit import ManualClock, TTLCache, make_key, memoize


@pytest.fixture
def cache():
    return TTLCache(maxsize=64, ttl=30, clock=ManualClock())


def test_make_key_sorts_keyword_arguments():
    assert make_key("ns", (1,), {"b": 2, "a": 1}) == make_key("ns", (1,), {"a": 1, "b": 2})
    assert make_key("ns", ([1, 2],)) == ("ns", (1, 2))


def test_memoize_caches_results(cache):
    calls = []

    @memoize(cache)
    def square(x):
        calls.append(x)
        return x * x

    assert square(3) == 9
    assert square(3) == 9
    assert square(x=3) == 9
    assert calls == [3]


def test_invalidate_drops_entry(cache):
    calls = []

    @memoize(cache, namespace="double")
    def double(x):
        calls.append(x)
        return 2 * x

    double(4)
    assert double.invalidate(4) is True
    double(4)
    assert calls == [4, 4]


def test_cache_clear_only_touches_own_namespace(cache):
    @memoize(cache, namespace="f")
    def f(x):
        return x

    @memoize(cache, namespace="g")
    def g(x):
        return -x

    f(1), f(2), g(1)
    assert f.cache_clear() == 2
    assert len(cache) == 1


def test_cache_none_false_does_not_store_none(cache):
    @memoize(cache, cache_none=False)
    def lookup(x):
        return None

    lookup(1)
    assert len(cache) == 0
