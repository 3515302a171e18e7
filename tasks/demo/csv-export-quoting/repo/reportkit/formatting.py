"""Rendering of Python values as CSV text."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Dict

Formatter = Callable[[Any], str]


def format_text(value: Any) -> str:
    if value is None:
        return ""
    return str(value)


def format_int(value: Any) -> str:
    if value is None or value == "":
        return ""
    return str(int(value))


def format_decimal(value: Any, places: int = 2) -> str:
    """Render a money-like amount with a fixed number of decimal places."""
    if value is None or value == "":
        return ""
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"not a decimal amount: {value!r}") from None
    quantum = Decimal(1).scaleb(-places)
    return str(amount.quantize(quantum))


def format_bool(value: Any) -> str:
    if value is None:
        return ""
    return "yes" if value else "no"


def format_date(value: Any) -> str:
    """ISO 8601 dates; datetimes are rendered without microseconds."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.datetime):
        return value.replace(microsecond=0).isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


FORMATTERS: Dict[str, Formatter] = {
    "text": format_text,
    "int": format_int,
    "decimal": format_decimal,
    "bool": format_bool,
    "date": format_date,
}

NUMERIC_KINDS = frozenset({"int", "decimal"})


def get_formatter(kind: str) -> Formatter:
    try:
        return FORMATTERS[kind]
    except KeyError:
        raise ValueError(f"unknown column kind {kind!r}") from None
