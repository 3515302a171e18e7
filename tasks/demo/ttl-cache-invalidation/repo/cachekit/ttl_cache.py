"""A bounded cache with per-entry time-to-live and LRU eviction."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Hashable, Iterator

from .clock import Clock, SystemClock


class _Missing:
    """Sentinel type for "no cached value" (``None`` is a valid value)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


@dataclass
class CacheStats:
    """Counters describing how a cache has been used."""

    hits: int = 0
    misses: int = 0
    evictions: int = 0
    expirations: int = 0

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


class TTLCache:
    """Mapping-like cache whose entries expire after ``ttl`` seconds.

    When more than ``maxsize`` entries are stored, the least recently used
    entry is evicted.  Reading an entry with :meth:`get` marks it as recently
    used.  Expired entries are dropped lazily, when they are looked up or when
    room is needed.

    The cache is safe to use from several threads.
    """

    def __init__(self, maxsize: int = 128, ttl: float = 300.0, clock: Clock | None = None) -> None:
        if maxsize <= 0:
            raise ValueError("maxsize must be positive")
        if ttl <= 0:
            raise ValueError("ttl must be positive")
        self.maxsize = maxsize
        self.ttl = float(ttl)
        self._clock = clock or SystemClock()
        self._data: "OrderedDict[Hashable, tuple[float, Any]]" = OrderedDict()
        self._lock = threading.RLock()
        self.stats = CacheStats()

    # -- internal helpers -------------------------------------------------

    def _expired(self, expires_at: float) -> bool:
        return self._clock.now() >= expires_at

    def _purge_expired(self) -> None:
        for key in [k for k, (exp, _) in self._data.items() if self._expired(exp)]:
            del self._data[key]
            self.stats.expirations += 1

    # -- public API -------------------------------------------------------

    def get(self, key: Hashable, default: Any = MISSING) -> Any:
        """Return the value for ``key`` or ``default`` if absent or expired."""
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                self.stats.misses += 1
                return default
            expires_at, value = entry
            if self._expired(expires_at):
                del self._data[key]
                self.stats.expirations += 1
                self.stats.misses += 1
                return default
            self._data.move_to_end(key)
            self.stats.hits += 1
            return value

    def set(self, key: Hashable, value: Any, ttl: float | None = None) -> None:
        """Store ``value`` under ``key`` for ``ttl`` seconds (default: cache ttl)."""
        lifetime = self.ttl if ttl is None else float(ttl)
        with self._lock:
            if key in self._data:
                del self._data[key]
            elif len(self._data) >= self.maxsize:
                self._purge_expired()
                while len(self._data) >= self.maxsize:
                    self._data.popitem(last=False)
                    self.stats.evictions += 1
            self._data[key] = (self._clock.now() + lifetime, value)

    def delete(self, key: Hashable) -> bool:
        """Remove ``key``; return ``True`` if an entry was removed."""
        with self._lock:
            return self._data.pop(key, None) is not None

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def keys(self) -> list:
        """Keys of the live (non-expired) entries, least recently used first."""
        with self._lock:
            self._purge_expired()
            return list(self._data)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            entry = self._data.get(key)
            return entry is not None and not self._expired(entry[0])

    def __len__(self) -> int:
        with self._lock:
            self._purge_expired()
            return len(self._data)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.keys())
