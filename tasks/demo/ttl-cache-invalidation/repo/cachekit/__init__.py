"""cachekit: a small TTL/LRU caching layer with a memoize decorator."""

from .clock import ManualClock, SystemClock
from .keys import make_key
from .memoize import memoize
from .ttl_cache import MISSING, CacheStats, TTLCache

__all__ = [
    "CacheStats",
    "MISSING",
    "ManualClock",
    "SystemClock",
    "TTLCache",
    "make_key",
    "memoize",
]

__version__ = "0.4.2"
