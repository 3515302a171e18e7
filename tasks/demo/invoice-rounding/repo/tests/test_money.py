from decimal import Decimal

import pytest

from ledgerly import format_money, minor_unit, to_money


def test_rounding_is_half_up():
    assert to_money(Decimal("2.675"), "EUR") == Decimal("2.68")
    assert to_money(Decimal("0.125"), "USD") == Decimal("0.13")
    assert to_money("1234.5", "JPY") == Decimal("1235")


def test_float_input_is_not_binary_rounded():
    assert to_money(2.675, "EUR") == Decimal("2.68")


def test_minor_units():
    assert minor_unit("EUR") == Decimal("0.01")
    assert minor_unit("jpy") == Decimal("1")
    assert minor_unit("BHD") == Decimal("0.001")
    with pytest.raises(ValueError):
        minor_unit("XYZ")


def test_format_money():
    assert format_money(Decimal("1234.5"), "EUR") == "\u20ac1,234.50"
    assert format_money(Decimal("-3"), "USD") == "-$3.00"
    assert format_money(Decimal("1.25"), "BHD") == "BHD 1.250"
    assert format_money(Decimal("1500"), "JPY") == "\u00a51,500"
