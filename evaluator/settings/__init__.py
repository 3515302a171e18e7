"""Every setting of the harness, declared once and read through one object.

    from evaluator.settings import settings
    settings.store            # Path: --store, else $EVAL_STORE, else .eval
    settings.source("store")  # "default" | "environment" | "command line"

Declarations live in `_declared` (docs/settings.md is generated from them); `_setting` is the
machinery (kinds, errors); `_cli` holds the options every command shares and `config`. This
package sits at the bottom of the harness: it imports nothing of it but `evaluator.errors`.
"""

from evaluator.settings._cli import (
    PATH_SETTINGS,
    add_commands,
    add_deprecated_alias,
    add_path_options,
    add_set_option,
    check_set_given,
    effective,
    given_paths,
    markdown,
)
from evaluator.settings._declared import GROUPS, Settings, cache_home, settings
from evaluator.settings._setting import Kind, Setting, SettingError, Source

__all__ = [
    "GROUPS",
    "PATH_SETTINGS",
    "Kind",
    "Setting",
    "SettingError",
    "Settings",
    "Source",
    "add_commands",
    "cache_home",
    "add_deprecated_alias",
    "add_path_options",
    "add_set_option",
    "check_set_given",
    "effective",
    "given_paths",
    "markdown",
    "settings",
]
