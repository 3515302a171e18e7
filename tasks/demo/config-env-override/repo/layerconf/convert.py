"""Conversion of raw configuration values to Python types.

Values read from INI files and environment variables are strings; values from
defaults and JSON files may already be typed.  The converters below accept
both, so ``to_bool("off")`` and ``to_bool(False)`` give the same answer.
"""

from .errors import ConversionError

TRUE_STRINGS = frozenset({"1", "true", "yes", "on", "y", "t"})
FALSE_STRINGS = frozenset({"0", "false", "no", "off", "n", "f", ""})


def to_bool(value, key=None):
    """Interpret ``value`` as a boolean.

    Strings are matched case-insensitively against :data:`TRUE_STRINGS` and
    :data:`FALSE_STRINGS`; anything else raises :class:`ConversionError`.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in TRUE_STRINGS:
            return True
        if lowered in FALSE_STRINGS:
            return False
    raise ConversionError(value, "bool", key)


def to_int(value, key=None):
    """Interpret ``value`` as an integer (``"8080"``, ``8080``, ``" 0x1F "``)."""
    if isinstance(value, bool):
        raise ConversionError(value, "int", key)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            return int(text, 0)
        except ValueError:
            pass
    raise ConversionError(value, "int", key)


def to_float(value, key=None):
    """Interpret ``value`` as a float."""
    if isinstance(value, bool):
        raise ConversionError(value, "float", key)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise ConversionError(value, "float", key)


def to_list(value, key=None, separator=","):
    """Interpret ``value`` as a list; strings are split on ``separator``.

    Empty items are dropped, so ``"a, b,"`` gives ``["a", "b"]``.
    """
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        return [item.strip() for item in value.split(separator) if item.strip()]
    raise ConversionError(value, "list", key)
