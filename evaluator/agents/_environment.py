"""The Python environment code runs in: the interpreter and the installed distributions.

An agent's identity holds the interpreter's version and the name and version of each
distribution its code can import (its closure, see `_distributions`), so swapping one of those
makes its attempts stale and installing an unrelated one does not. The harness's own environment
must be exactly what `requirements.lock` pins: installing a scaffold beside it can silently up-
or downgrade a harness dependency, and then a key no longer says what ran.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.agents._distributions import closure, normalize, site_folders, versions
from evaluator.errors import BadInputError

_ROOT = Path(__file__).resolve().parents[2]
LOCK_FILE = _ROOT / "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


class EnvironmentDriftError(BadInputError):
    """The installed distributions differ from the lock; `problems` names each one."""

    def __init__(self, message: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(message)


def installed_distributions(search_path: Sequence[str] | None = None) -> dict[str, str]:
    """Normalised name -> version of every distribution importable along `search_path` (the
    first on the path wins, as it does for `import`), from the one scan of the installed
    distributions that agents' identities read too."""
    return versions(_own_folders(sys.path if search_path is None else search_path))


def _own_folders(path: Sequence[str]) -> list[str]:
    """`path` without folders inside a site-packages folder: a library puts those on sys.path
    when it is imported (`import ray` adds ray/thirdparty_files), so they differ from process to
    process; what they hold is that library's own and its version already covers it."""
    sites = tuple(Path(p) for p in site_folders())
    kept = []
    for entry in path:
        here = Path(entry or os.curdir).absolute()
        if not any(here != s and here.is_relative_to(s) for s in sites):
            kept.append(entry)
    return kept


def environment_identity(external: Mapping[str, Path] | None = None,
                         search_path: Sequence[str] | None = None) -> dict[str, Any]:
    """What an agent's identity holds of its environment: the interpreter, and the closure of
    the distributions that the installed modules in `external` (what its own code imports)
    belong to, with the code every start of the interpreter runs."""
    path = _own_folders(sys.path if search_path is None else search_path)
    return {"python": f"{platform.python_implementation()} {platform.python_version()}",
            **closure(external or {}, path)}


def locked_pins(lock_file: str | Path = LOCK_FILE) -> dict[str, str]:
    """Normalised name -> version of every `name==version` line of a pip lock file."""
    pins = {}
    for line in Path(lock_file).read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line)
        if match:
            pins[normalize(match.group(1))] = match.group(2)
    return pins


def environment_drift(pins: dict[str, str], installed: dict[str, str]) -> list[str]:
    """One line per pinned distribution that is missing or at another version."""
    problems = []
    for name, version in sorted(pins.items()):
        have = installed.get(name)
        if have is None:
            problems.append(f"{name}: pinned {version}, not installed")
        elif have != version:
            problems.append(f"{name}: pinned {version}, installed {have}")
    return problems


def check_environment(lock_file: str | Path = LOCK_FILE,
                      search_path: Sequence[str] | None = None) -> None:
    """Refuse to go on when this interpreter's distributions differ from `lock_file`."""
    problems = environment_drift(locked_pins(lock_file), installed_distributions(search_path))
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise EnvironmentDriftError(
            f"the harness's Python environment ({sys.prefix}) differs from {lock_file}:\n{lines}\n"
            f"reinstall the pinned versions with `{sys.executable} -m pip install --require-hashes "
            f"-r requirements-dev.lock` (or `rm -rf .venv && make venv`); install a scaffold's own "
            f"dependencies only at versions the lock allows, or pin them in the lock", problems)


__all__ = [
    "LOCK_FILE",
    "EnvironmentDriftError",
    "check_environment",
    "environment_drift",
    "environment_identity",
    "installed_distributions",
    "locked_pins",
]
