"""Exceptions raised by layerconf."""


class ConfigError(Exception):
    """Base class for configuration problems (bad files, bad values)."""


class ConversionError(ConfigError, ValueError):
    """A value cannot be converted to the requested type."""

    def __init__(self, value, target, key=None):
        self.value = value
        self.target = target
        self.key = key
        where = f" for key {key!r}" if key else ""
        super().__init__(f"cannot convert {value!r} to {target}{where}")


class MissingKeyError(ConfigError, KeyError):
    """A key was requested that no layer defines, and no default was given."""

    def __init__(self, key):
        self.key = key
        super().__init__(key)

    def __str__(self):
        return f"configuration key {self.key!r} is not set"
