"""layerconf: layered configuration from defaults, files and environment variables."""

from .config import Config
from .convert import to_bool, to_float, to_int, to_list
from .errors import ConfigError, ConversionError, MissingKeyError

__all__ = [
    "Config",
    "ConfigError",
    "ConversionError",
    "MissingKeyError",
    "to_bool",
    "to_float",
    "to_int",
    "to_list",
]

__version__ = "1.2.0"
