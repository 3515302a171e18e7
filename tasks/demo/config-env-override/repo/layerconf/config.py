"""The :class:`Config` object that stacks the configuration layers."""

import copy
import os

from . import convert
from .errors import ConfigError, MissingKeyError
from .keys import MISSING, deep_merge, flatten, get_path, normalize_tree, set_path, split_key
from .sources import iter_env, read_file


class Config:
    """Configuration assembled from defaults, files and environment variables.

    Layers are applied in the order the ``load_*`` methods are called; every
    layer overrides the values set before it.  ``source_of(key)`` tells which
    layer a value came from, which is handy for ``--show-config`` output.
    """

    def __init__(self, defaults=None):
        self._data = normalize_tree(defaults or {})
        self._origin = {key: "defaults" for key in flatten(self._data)}

    # -- layers -------------------------------------------------------------

    def load_dict(self, values, origin="dict"):
        """Merge a (possibly nested) dict as a new layer."""
        for key in deep_merge(self._data, normalize_tree(values)):
            self._origin[key] = origin
        return self

    def load_file(self, path, *, required=True):
        """Merge a JSON or INI file as a new layer.

        With ``required=False`` a missing file is silently skipped.
        """
        path = os.fspath(path)
        if not os.path.exists(path):
            if required:
                raise ConfigError(f"configuration file not found: {path}")
            return self
        return self.load_dict(read_file(path), origin=f"file:{path}")

    def load_env(self, prefix="APP_", environ=None, *, separator="__", only_known=True):
        """Apply environment variables starting with ``prefix`` as a new layer.

        ``APP_WORKERS`` sets ``workers`` and ``APP_DB__PORT`` sets ``db.port``
        (``separator`` separates nesting levels).  Raw values are converted to
        the type of the value they override, so an integer default stays an
        integer.  Unless ``only_known`` is false, variables that do not match
        an existing key are ignored, so unrelated variables sharing the prefix
        cannot inject settings.
        """
        environ = os.environ if environ is None else environ
        for path, raw, name in iter_env(prefix, environ, separator=separator):
            key = ".".join(path)
            if only_known and key not in self._data:
                continue
            current = self._data.get(key)
            if current is None:
                value = raw
            else:
                try:
                    value = type(current)(raw)
                except (TypeError, ValueError):
                    raise convert.ConversionError(raw, type(current).__name__, key) from None
            set_path(self._data, path, value)
            self._origin[key] = f"env:{name}"
        return self

    # -- access -------------------------------------------------------------

    def get(self, key, default=MISSING):
        """Return the value for a dotted ``key``.

        Raises :class:`MissingKeyError` if the key is unset and no default
        is given.
        """
        value = get_path(self._data, split_key(key))
        if value is MISSING:
            if default is MISSING:
                raise MissingKeyError(key)
            return default
        return copy.deepcopy(value) if isinstance(value, (dict, list)) else value

    def _typed(self, key, default, converter):
        value = self.get(key, default)
        if value is None:
            return None
        return converter(value, key=key)

    def get_str(self, key, default=MISSING):
        """Return the value as a string."""
        value = self.get(key, default)
        return None if value is None else str(value)

    def get_int(self, key, default=MISSING):
        """Return the value as an int (see :func:`layerconf.convert.to_int`)."""
        return self._typed(key, default, convert.to_int)

    def get_float(self, key, default=MISSING):
        """Return the value as a float."""
        return self._typed(key, default, convert.to_float)

    def get_bool(self, key, default=MISSING):
        """Return the value as a bool (``"yes"``, ``"off"``, ``1`` ... accepted)."""
        return self._typed(key, default, convert.to_bool)

    def get_list(self, key, default=MISSING, separator=","):
        """Return the value as a list; strings are split on ``separator``."""
        value = self.get(key, default)
        if value is None:
            return None
        return convert.to_list(value, key=key, separator=separator)

    def section(self, key):
        """Return a new :class:`Config` holding a copy of the sub-tree at ``key``."""
        value = self.get(key)
        if not isinstance(value, dict):
            raise ConfigError(f"{key!r} is not a section")
        sub = Config(value)
        prefix = ".".join(split_key(key)) + "."
        sub._origin = {
            name[len(prefix):]: origin
            for name, origin in self._origin.items()
            if name.startswith(prefix)
        }
        return sub

    def source_of(self, key):
        """Return the layer that set ``key``: ``'defaults'``, ``'file:...'``, ``'env:...'``."""
        dotted = ".".join(split_key(key))
        if dotted not in self._origin:
            raise MissingKeyError(key)
        return self._origin[dotted]

    def as_dict(self):
        """Return a deep copy of the merged configuration tree."""
        return copy.deepcopy(self._data)

    def __contains__(self, key):
        return get_path(self._data, split_key(key)) is not MISSING

    def __repr__(self):
        return f"Config({self._data!r})"
