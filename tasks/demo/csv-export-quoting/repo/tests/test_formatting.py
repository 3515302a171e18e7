import datetime as dt
from decimal import Decimal

import pytest

from reportkit.formatting import format_bool, format_date, format_decimal, get_formatter


def test_decimal_is_rounded_to_two_places():
    assert format_decimal("12.5") == "12.50"
    assert format_decimal(Decimal("3.14159")) == "3.14"
    assert format_decimal(None) == ""


def test_dates_and_datetimes():
    assert format_date(dt.date(2024, 3, 1)) == "2024-03-01"
    assert format_date(dt.datetime(2024, 3, 1, 9, 30, 5, 123)) == "2024-03-01 09:30:05"


def test_bool_and_unknown_kind():
    assert format_bool(True) == "yes"
    assert format_bool(False) == "no"
    with pytest.raises(ValueError):
        get_formatter("currency")
