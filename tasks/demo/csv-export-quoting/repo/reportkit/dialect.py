"""Export dialects.

A dialect bundles the few settings that differ between the consumers of our
exports: the field delimiter, the quote character, the line terminator and
the quoting policy.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class Quoting(enum.Enum):
    """When fields are wrapped in quote characters.

    ``MINIMAL``
        only fields that would otherwise be ambiguous: fields containing the
        delimiter, the quote character or a line break;
    ``ALL``
        every field;
    ``NONNUMERIC``
        every field that is not a number;
    ``NONE``
        never; a field that would need quoting raises :class:`ExportError`.
    """

    MINIMAL = "minimal"
    ALL = "all"
    NONNUMERIC = "nonnumeric"
    NONE = "none"


@dataclass(frozen=True)
class ExportDialect:
    """Settings for one CSV flavour.

    Inside a quoted field, the quote character is escaped by doubling it, as
    described in RFC 4180 (``a"b`` becomes ``"a""b"``).
    """

    name: str
    delimiter: str = ","
    quotechar: str = '"'
    lineterminator: str = "\r\n"
    quoting: Quoting = Quoting.MINIMAL
    header: bool = True

    def __post_init__(self) -> None:
        if len(self.delimiter) != 1:
            raise ValueError("delimiter must be a single character")
        if len(self.quotechar) != 1:
            raise ValueError("quotechar must be a single character")
        if self.delimiter == self.quotechar:
            raise ValueError("delimiter and quotechar must differ")
        if self.lineterminator not in ("\r\n", "\n"):
            raise ValueError("lineterminator must be '\\r\\n' or '\\n'")

    def with_options(self, **changes) -> "ExportDialect":
        """Return a copy of this dialect with some settings changed."""
        return replace(self, **changes)


EXCEL = ExportDialect("excel")
EXCEL_SEMICOLON = ExportDialect("excel-semicolon", delimiter=";")
TSV = ExportDialect("tsv", delimiter="\t", lineterminator="\n")
UNIX = ExportDialect("unix", lineterminator="\n", quoting=Quoting.ALL)

_REGISTRY = {d.name: d for d in (EXCEL, EXCEL_SEMICOLON, TSV, UNIX)}


def get_dialect(name_or_dialect) -> ExportDialect:
    """Look a dialect up by name, or pass an :class:`ExportDialect` through."""
    if isinstance(name_or_dialect, ExportDialect):
        return name_or_dialect
    try:
        return _REGISTRY[name_or_dialect]
    except KeyError:
        raise ValueError(f"unknown dialect {name_or_dialect!r}") from None
