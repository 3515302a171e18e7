"""One setting: an environment variable with a type, a default and a line that says what it does.

A `Setting` is a descriptor on `Settings`: reading it takes the value in force at that moment (a
command-line value given to `Settings.given`, else the environment, else the default), so tests
and forked workers that change the environment see the change. An empty or blank variable counts
as unset. A value the type refuses raises `SettingError`, naming the variable, what it holds and
what it accepts.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, overload

from evaluator.errors import BadInputError

if TYPE_CHECKING:
    from evaluator.settings._declared import Settings

T = TypeVar("T")
Source = Literal["default", "environment", "command line"]


class SettingError(BadInputError):
    """A setting's value is not one its type accepts; the message says which values are."""


@dataclass(frozen=True)
class Kind(Generic[T]):
    """How a setting's text becomes its value: `parse` returns it or raises ValueError."""

    accepts: str  # what the table and the error say it takes
    parse: Callable[[str], T]


def _path(raw: str) -> Path:
    if not raw:
        raise ValueError(raw)
    return Path(raw)


PATH: Kind[Path] = Kind("a path", _path)
TEXT: Kind[str] = Kind("text", str)


def whole(lo: int, hi: int | None = None) -> Kind[int]:
    accepts = f"a whole number from {lo} to {hi}" if hi is not None else f"a whole number >= {lo}"

    def parse(raw: str) -> int:
        if not raw.isdigit() or int(raw) < lo or (hi is not None and int(raw) > hi):
            raise ValueError(raw)
        return int(raw)

    return Kind(accepts, parse)


def number(lo: float) -> Kind[float]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not value >= lo:  # also refuses nan
            raise ValueError(raw)
        return value

    return Kind(f"a number >= {lo:g}", parse)


def choice(*values: str) -> Kind[str]:
    def parse(raw: str) -> str:
        if raw not in values:
            raise ValueError(raw)
        return raw

    return Kind("one of " + ", ".join(values), parse)


def names() -> Kind[tuple[str, ...]]:
    return Kind("comma-separated names",
                lambda raw: tuple(n.strip() for n in raw.split(",") if n.strip()))


def command() -> Kind[tuple[str, ...]]:
    def parse(raw: str) -> tuple[str, ...]:
        argv = tuple(shlex.split(raw))
        if not argv:
            raise ValueError(raw)
        return argv

    return Kind("a command line (split as a shell would)", parse)


def matching(accepts: str, ok: Callable[[str], bool]) -> Kind[str]:
    def parse(raw: str) -> str:
        if not ok(raw):
            raise ValueError(raw)
        return raw

    return Kind(accepts, parse)


class Setting(Generic[T]):
    """`env` (the variable), `kind`, `default` (a value, or a function of nothing for defaults
    computed where they are read, e.g. from this checkout) and `doc`, one line.

    `flag` is the command-line option that overrides it on every command that takes it (see
    `add_path_options`); `default_doc` says in words what a computed default is; `group` places
    it in the table."""

    def __init__(self, env: str, kind: Kind[Any], default: T | Callable[[], T], doc: str, *,
                 group: str, flag: str | None = None, default_doc: str | None = None,
                 secret: bool = False) -> None:
        self.env, self.kind, self.doc, self.group, self.flag = env, kind, doc, group, flag
        self.secret = secret  # `config` says whether it is set, never what it is
        self._default = default
        self.default_doc = default_doc
        self.attr = ""  # set by __set_name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Setting[T]: ...

    @overload
    def __get__(self, obj: Settings, owner: type | None = None) -> T: ...

    def __get__(self, obj: Settings | None, owner: type | None = None) -> Setting[T] | T:
        if obj is None:
            return self
        raw, _ = obj.raw(self)
        return self.default() if raw is None else self.parse(raw)

    def default(self) -> T:
        d = self._default
        return d() if callable(d) else d

    def parse(self, raw: str, where: str | None = None) -> T:
        """The value of `raw`, or a SettingError naming the variable (or `where` it came from)."""
        try:
            value: T = self.kind.parse(raw.strip())
        except ValueError:
            raise SettingError(f"{where or '$' + self.env} is {raw!r}; it takes {self.kind.accepts}. "
                               f"Fix it, or unset {self.env} for its default "
                               f"({self.describe_default()}). {self.env}: {self.doc}") from None
        return value

    def describe_default(self) -> str:
        if self.default_doc is not None:
            return self.default_doc
        d = self._default
        if callable(d):
            return "computed"
        if d is None:
            return "unset"
        if isinstance(d, tuple):
            return " ".join(d) or "none"
        return str(d)
