"""Helpers for dotted key paths over nested dictionaries.

Configuration values live in a tree of plain dicts.  Keys are addressed with
dotted paths such as ``"db.pool.size"``; these helpers split such paths and
read, write, merge and flatten the tree.
"""

import copy

MISSING = object()


def split_key(key):
    """Split a dotted key into a tuple of lower-cased parts.

    >>> split_key("DB.Port")
    ('db', 'port')
    """
    if isinstance(key, tuple):
        parts = key
    else:
        parts = tuple(str(key).split("."))
    parts = tuple(part.strip().lower() for part in parts)
    if not parts or any(not part for part in parts):
        raise ValueError(f"invalid configuration key: {key!r}")
    return parts


def get_path(tree, path, default=MISSING):
    """Return the value at ``path`` in ``tree``, or ``default`` if absent."""
    node = tree
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def set_path(tree, path, value):
    """Set ``value`` at ``path``, creating intermediate dicts as needed."""
    node = tree
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[path[-1]] = value


def normalize_tree(tree):
    """Return a deep copy of ``tree`` with all keys lower-cased strings."""
    result = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            value = normalize_tree(value)
        else:
            value = copy.deepcopy(value)
        result[str(key).strip().lower()] = value
    return result


def deep_merge(base, override):
    """Merge ``override`` into ``base`` in place; nested dicts merge recursively.

    Returns the list of dotted keys whose values were set by ``override``.
    """
    touched = []

    def merge(dst, src, prefix):
        for key, value in src.items():
            dotted = f"{prefix}{key}"
            if isinstance(value, dict) and isinstance(dst.get(key), dict):
                merge(dst[key], value, dotted + ".")
            else:
                dst[key] = copy.deepcopy(value)
                if isinstance(value, dict):
                    touched.extend(f"{dotted}.{k}" for k in flatten(value))
                else:
                    touched.append(dotted)

    merge(base, override, "")
    return touched


def flatten(tree, prefix=""):
    """Return ``{"a.b": value}`` for every leaf of a nested dict."""
    flat = {}
    for key, value in tree.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat
