"""The :func:`memoize` decorator.

``memoize`` caches the return value of a function in a :class:`TTLCache`.  The
arguments are bound to the function's signature before the key is built, so
``load(1)``, ``load(user_id=1)`` and ``load(1, fresh=False)`` (where ``fresh``
defaults to ``False``) all share one cache entry.

The wrapped function gains three helpers:

``wrapper.invalidate(*args, **kwargs)``
    drop the entry for exactly these arguments;
``wrapper.cache_clear()``
    drop every entry this function stored;
``wrapper.cache_key(*args, **kwargs)``
    the key that a call with these arguments would use.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, TypeVar

from .keys import make_key
from .ttl_cache import MISSING, TTLCache

F = TypeVar("F", bound=Callable[..., Any])


def memoize(
    cache: TTLCache,
    *,
    namespace: str | None = None,
    ttl: float | None = None,
    cache_none: bool = True,
) -> Callable[[F], F]:
    """Cache the results of the decorated function in ``cache``.

    :param cache: the cache to store results in; it may be shared between
        several memoized functions, their keys never collide because each one
        is prefixed with ``namespace``.
    :param namespace: key prefix; defaults to the function's qualified name.
    :param ttl: lifetime of the entries; defaults to the cache's ``ttl``.
    :param cache_none: whether a ``None`` result is cached.
    """

    def decorator(func: F) -> F:
        ns = namespace or f"{func.__module__}.{func.__qualname__}"
        signature = inspect.signature(func)

        def build_key(args: tuple, kwargs: dict) -> tuple:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return make_key(ns, bound.args, bound.kwargs)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = build_key(args, kwargs)
            value = cache.get(key)
            if value is not MISSING:
                return value
            value = func(*args, **kwargs)
            if value is not None or cache_none:
                cache.set(key, value, ttl=ttl)
            return value

        def invalidate(*args: Any, **kwargs: Any) -> bool:
            """Forget the cached result for these arguments."""
            return cache.delete(make_key(ns, args, kwargs))

        def cache_clear() -> int:
            """Forget every result cached by this function; return how many."""
            removed = 0
            for key in cache.keys():
                if isinstance(key, tuple) and key and key[0] == ns:
                    removed += cache.delete(key)
            return removed

        def cache_key(*args: Any, **kwargs: Any) -> tuple:
            return build_key(args, kwargs)

        wrapper.invalidate = invalidate  # type: ignore[attr-defined]
        wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
        wrapper.cache_key = cache_key  # type: ignore[attr-defined]
        wrapper.cache = cache  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorator
