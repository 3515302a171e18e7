"""Cache key construction.

Keys are plain tuples so that they are hashable, cheap to compare and easy to
read in debugging output.  Keyword arguments are sorted by name so that
``f(a=1, b=2)`` and ``f(b=2, a=1)`` map to the same key.
"""

from __future__ import annotations

from typing import Any, Hashable, Mapping, Sequence

_KWARGS_MARK = ("__kwargs__",)


def _freeze(value: Any) -> Hashable:
    """Turn common unhashable containers into hashable equivalents."""
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_freeze(v) for v in value)
    return value


def make_key(
    namespace: str,
    args: Sequence[Any] = (),
    kwargs: Mapping[str, Any] | None = None,
) -> tuple:
    """Build a cache key from a namespace and call arguments.

    >>> make_key("user", (42,))
    ('user', 42)
    >>> make_key("user", (42,), {"active": True})
    ('user', 42, '__kwargs__', ('active', True))
    """
    key: tuple = (namespace,) + tuple(_freeze(a) for a in args)
    if kwargs:
        key += _KWARGS_MARK
        for name in sorted(kwargs):
            key += ((name, _freeze(kwargs[name])),)
    return key
