"""A small streaming CSV writer.

:class:`CsvWriter` writes rows of values to a text stream using an
:class:`~reportkit.dialect.ExportDialect`.  It exists (instead of
:func:`csv.writer`) because exports need per-column numeric hints for the
``NONNUMERIC`` policy and a strict ``NONE`` policy that refuses ambiguous
output instead of silently escaping it.
"""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any, Iterable, Optional, Sequence, TextIO

from .dialect import EXCEL, ExportDialect, Quoting, get_dialect


class ExportError(ValueError):
    """Raised when a value cannot be written with the chosen dialect."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


class CsvWriter:
    """Write delimited rows to ``stream``.

    ``write_row`` accepts any values; ``None`` becomes an empty field, every
    other value is converted with :func:`str`.  Numbers (``int``, ``float``,
    ``Decimal``) are considered numeric for the ``NONNUMERIC`` policy; callers
    that already converted values to text can pass ``numeric`` flags
    explicitly.
    """

    def __init__(self, stream: TextIO, dialect: ExportDialect | str = EXCEL) -> None:
        self.stream = stream
        self.dialect = get_dialect(dialect)
        self.rows_written = 0

    # -- field rendering --------------------------------------------------

    def _special_chars(self) -> tuple:
        d = self.dialect
        return (d.delimiter, d.quotechar, "\n", "\r")

    def needs_quoting(self, text: str) -> bool:
        """Whether ``text`` would be ambiguous if written unquoted."""
        return any(ch in text for ch in self._special_chars())

    def quote(self, text: str) -> str:
        """Wrap ``text`` in quote characters, doubling embedded quotes."""
        q = self.dialect.quotechar
        return q + text.replace(q, q + q) + q

    def render_field(self, value: Any, numeric: Optional[bool] = None) -> str:
        """Return the text of one field, quoted as the dialect requires."""
        text = "" if value is None else str(value)
        if numeric is None:
            numeric = _is_number(value)
        policy = self.dialect.quoting

        if policy is Quoting.ALL:
            return self.quote(text)
        if policy is Quoting.NONNUMERIC and not numeric:
            return self.quote(text)
        if self.needs_quoting(text):
            if policy is Quoting.NONE:
                raise ExportError(
                    f"field {text!r} needs quoting but dialect {self.dialect.name!r} "
                    "does not allow it"
                )
            q = self.dialect.quotechar
            return q + text + q
        return text

    # -- rows -------------------------------------------------------------

    def write_row(self, values: Sequence[Any], numeric: Optional[Sequence[bool]] = None) -> None:
        """Write one row.  ``numeric`` optionally gives a flag per value."""
        if numeric is not None and len(numeric) != len(values):
            raise ValueError("numeric flags must match the number of values")
        flags = numeric if numeric is not None else [None] * len(values)
        fields = [self.render_field(v, n) for v, n in zip(values, flags)]
        self.stream.write(self.dialect.delimiter.join(fields) + self.dialect.lineterminator)
        self.rows_written += 1

    def write_rows(self, rows: Iterable[Sequence[Any]]) -> int:
        """Write several rows; return how many were written."""
        count = 0
        for row in rows:
            self.write_row(row)
            count += 1
        return count


def rows_to_csv(rows: Iterable[Sequence[Any]], dialect: ExportDialect | str = EXCEL) -> str:
    """Convenience wrapper: render ``rows`` to a string."""
    buffer = io.StringIO()
    CsvWriter(buffer, dialect).write_rows(rows)
    return buffer.getvalue()
