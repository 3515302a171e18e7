"""Typed records: one model per record kind, built in one place and read back through it.

Records are create-once and outlive the code that wrote them, so reading one must keep working
as its kind grows: a field an older writer did not know takes its default, a field this code
does not know is kept as it is (and written back the same), and what is declared is checked.

A record that does not parse (hand-edited, or written by other code) is a BadInputError naming
its kind, key and field when it is asked for by key (`Store.read`) or by query
(`Store.select`); a scan of what the store holds (`Store.select_readable`) leaves it out, and
`store verify` names it (`shape_problem`: every kind whose type is loaded registers itself).
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from evaluator.errors import BadInputError

R = TypeVar("R", bound="Record")

# Each kind's record type, registered as it is defined: `store verify` reads every record back
# through its type, as `Store.read` does, without the store importing the stages above it.
_TYPES: dict[str, type[Record]] = {}

# What `Store.put` adds to every record as it lands: never part of what a writer builds.
_LANDED = frozenset({"kind", "key", "created", "harness"})


class Record(BaseModel):
    """A stored record of kind `KIND`; `key`, `created` and `harness` (the build that landed it:
    `evaluator.version.harness_build`, provenance in no key) are filled in by the store."""

    model_config = ConfigDict(extra="allow", frozen=True)

    KIND: ClassVar[str]

    key: str = ""
    created: float = 0.0
    harness: dict[str, Any] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        kind = cls.__dict__.get("KIND")
        if isinstance(kind, str):  # a kind's own type, not a subclass that inherits its KIND
            _TYPES.setdefault(kind, cls)

    def body(self) -> dict[str, Any]:
        """The JSON object `Store.put` stores (it adds kind, key and created itself)."""
        return self.model_dump(mode="json", exclude=set(_LANDED))

    @classmethod
    def parse(cls: type[R], data: dict[str, Any], where: str = "") -> R:
        """The record read back from its JSON object; BadInputError naming the field otherwise."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise BadInputError(
                f"{_first(cls.KIND, data, where, exc)}; the record is not one this harness wrote "
                "(remove it, or restore it from the remote, and run again)") from None


def shape_problem(kind: str, key: str, data: dict[str, Any]) -> str:
    """Why `data` does not read back as a record of `kind` ("kind record KEY: field 'f': ..."),
    or "" when it does or when no type of that kind is loaded in this process."""
    cls = _TYPES.get(kind)
    if cls is None:
        return ""
    try:
        cls.model_validate(data)
    except ValidationError as exc:
        return _first(kind, data, key, exc)
    return ""


def _first(kind: str, data: dict[str, Any], where: str, exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "(the record)"
    return f"{kind} record {data.get('key') or where}: field {field!r}: {first['msg']}"
