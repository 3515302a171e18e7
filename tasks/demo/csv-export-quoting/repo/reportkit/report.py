"""Declarative reports.

A :class:`Report` is a list of :class:`Column` objects.  Each column knows
how to pull its value out of a source row (a mapping or an object) and how to
format it.  ``Report.to_csv`` and ``Report.export`` then hand the formatted
text to :class:`~reportkit.writer.CsvWriter`.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, List, Mapping, Optional, Sequence

from .dialect import EXCEL, ExportDialect, get_dialect
from .formatting import NUMERIC_KINDS, Formatter, get_formatter
from .writer import CsvWriter


@dataclass
class Column:
    """One column of a report.

    :param key: the mapping key or attribute name to read; dotted paths such
        as ``"customer.name"`` walk nested objects/mappings.
    :param header: the header text; defaults to ``key``.
    :param kind: ``text``, ``int``, ``decimal``, ``bool`` or ``date``.
    :param getter: optional callable overriding ``key`` lookup.
    :param default: value used when the key is missing.
    """

    key: str
    header: Optional[str] = None
    kind: str = "text"
    getter: Optional[Callable[[Any], Any]] = None
    default: Any = None
    formatter: Formatter = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.header is None:
            self.header = self.key
        self.formatter = get_formatter(self.kind)

    @property
    def numeric(self) -> bool:
        return self.kind in NUMERIC_KINDS

    def extract(self, row: Any) -> Any:
        if self.getter is not None:
            return self.getter(row)
        value = row
        for part in self.key.split("."):
            if isinstance(value, Mapping):
                value = value.get(part, self.default)
            else:
                value = getattr(value, part, self.default)
            if value is None:
                return self.default
        return value

    def render(self, row: Any) -> str:
        return self.formatter(self.extract(row))


class Report:
    """A list of columns plus the logic to write rows with them."""

    def __init__(self, columns: Sequence[Column], title: str = "report") -> None:
        if not columns:
            raise ValueError("a report needs at least one column")
        headers = [c.header for c in columns]
        if len(set(headers)) != len(headers):
            raise ValueError("column headers must be unique")
        self.columns: List[Column] = list(columns)
        self.title = title

    @property
    def headers(self) -> List[str]:
        return [c.header for c in self.columns]

    def render_rows(self, rows: Iterable[Any]) -> Iterable[List[str]]:
        for row in rows:
            yield [c.render(row) for c in self.columns]

    def write(self, stream, rows: Iterable[Any], dialect: ExportDialect | str = EXCEL) -> int:
        """Write the header (if the dialect wants one) and ``rows``; return the row count."""
        dialect = get_dialect(dialect)
        writer = CsvWriter(stream, dialect)
        if dialect.header:
            writer.write_row(self.headers, numeric=[False] * len(self.columns))
        flags = [c.numeric for c in self.columns]
        count = 0
        for values in self.render_rows(rows):
            writer.write_row(values, numeric=flags)
            count += 1
        return count

    def to_csv(self, rows: Iterable[Any], dialect: ExportDialect | str = EXCEL) -> str:
        buffer = io.StringIO()
        self.write(buffer, rows, dialect)
        return buffer.getvalue()

    def export(self, path: str | os.PathLike, rows: Iterable[Any], dialect: ExportDialect | str = EXCEL) -> int:
        """Write the report to ``path`` (UTF-8, no newline translation)."""
        with open(path, "w", encoding="utf-8", newline="") as fh:
            return self.write(fh, rows, dialect)
