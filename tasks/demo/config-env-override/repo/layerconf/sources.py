"""Readers for the file and environment layers."""

import configparser
import json
import os

from .errors import ConfigError
from .keys import normalize_tree, set_path


def read_json(path):
    """Read a JSON file whose top level is an object; return a nested dict."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a JSON object")
    return normalize_tree(data)


def read_ini(path):
    """Read an INI file into a nested dict.

    Keys of the ``[DEFAULT]`` section land at the top level; every other
    section becomes a nested dict, and dotted section names nest further
    (``[db.pool]`` / ``size = 5`` is read as ``db.pool.size``).  Values are
    kept as strings; the typed getters convert them on access.
    """
    parser = configparser.ConfigParser(interpolation=None, default_section="DEFAULT")
    try:
        with open(path, encoding="utf-8") as handle:
            parser.read_file(handle)
    except configparser.Error as exc:
        raise ConfigError(f"{path}: invalid INI: {exc}") from None
    tree = {}
    for key, value in parser.defaults().items():
        tree[key.lower()] = value
    for section in parser.sections():
        section_path = tuple(part.strip().lower() for part in section.split("."))
        for key in parser.options(section):
            if key in parser.defaults() and parser.get(section, key) == parser.defaults()[key]:
                continue  # inherited from DEFAULT, already at top level
            set_path(tree, section_path + (key.lower(),), parser.get(section, key))
    return tree


def read_file(path):
    """Read a configuration file, choosing the format from its extension."""
    extension = os.path.splitext(path)[1].lower()
    if extension == ".json":
        return read_json(path)
    if extension in (".ini", ".cfg", ".conf"):
        return read_ini(path)
    raise ConfigError(f"{path}: unsupported configuration file type {extension!r}")


def iter_env(prefix, environ, separator="__"):
    """Yield ``(path, raw_value, variable_name)`` for variables starting with ``prefix``.

    The prefix is matched case-sensitively and stripped; the rest of the name
    is lower-cased and split on ``separator`` into a key path, so with prefix
    ``APP_`` the variable ``APP_DB__PORT`` yields ``(("db", "port"), ...)``.
    Variables are yielded in sorted order so results are reproducible.
    """
    for name in sorted(environ):
        if not name.startswith(prefix) or name == prefix:
            continue
        remainder = name[len(prefix):]
        parts = tuple(part.lower() for part in remainder.split(separator))
        if any(not part for part in parts):
            continue  # e.g. APP__X or APP_A____B: not a valid key path
        yield parts, environ[name], name
