from datetime import date
from decimal import Decimal

import pytest

from ledgerly import Invoice, LineItem, allocate, render_invoice, split_amount


def make_invoice():
    invoice = Invoice("INV-1001", currency="EUR", issued=date(2024, 5, 2))
    invoice.add(LineItem("Consulting", quantity=Decimal("7.5"), unit_price=Decimal("96.00")))
    invoice.add(LineItem("Travel", quantity=1, unit_price=Decimal("41.30"), tax_rate=Decimal("0.07")))
    return invoice


def test_totals_per_tax_rate():
    invoice = make_invoice()
    assert invoice.net_by_rate() == {Decimal("0.19"): Decimal("720.00"), Decimal("0.07"): Decimal("41.30")}
    assert invoice.tax_by_rate() == {Decimal("0.19"): Decimal("136.80"), Decimal("0.07"): Decimal("2.89")}
    assert invoice.subtotal == Decimal("761.30")
    assert invoice.total == Decimal("900.99")


def test_tax_is_computed_on_rate_subtotal_not_per_line():
    invoice = Invoice("INV-2", currency="EUR", issued=date(2024, 1, 1))
    for _ in range(3):
        invoice.add(LineItem("Widget", quantity=1, unit_price=Decimal("0.07")))
    # Rounded per line: 3 x 0.0133 -> 3 x 0.01 = 0.03.
    # On the subtotal:  0.21 x 0.19 = 0.0399 -> 0.04.
    assert invoice.tax_total == Decimal("0.04")
    assert invoice.total == Decimal("0.25")


def test_discounted_line():
    line = LineItem("Licence", quantity=3, unit_price=Decimal("19.99"), discount=Decimal("0.10"))
    assert line.net == Decimal("53.9730")
    with pytest.raises(ValueError):
        LineItem("Bad", discount=Decimal("1.5"))


def test_even_split():
    assert split_amount(Decimal("100.00"), 4, "EUR") == [Decimal("25.00")] * 4
    assert split_amount(Decimal("3000"), 3, "JPY") == [Decimal("1000")] * 3
    assert split_amount(Decimal("59.90"), 1, "EUR") == [Decimal("59.90")]


def test_split_rejects_bad_parts():
    with pytest.raises(ValueError):
        split_amount(Decimal("10.00"), 0, "EUR")


def test_payment_plan_dates():
    invoice = make_invoice()
    plan = invoice.payment_plan(3)
    assert [due for due, _ in plan] == [date(2024, 5, 16), date(2024, 6, 15), date(2024, 7, 15)]
    assert [amount for _, amount in plan] == [Decimal("300.33")] * 3


def test_allocate_by_weight():
    assert allocate(Decimal("10.00"), [1, 1, 1], "EUR") == [
        Decimal("3.34"), Decimal("3.33"), Decimal("3.33"),
    ]
    assert sum(allocate(Decimal("99.99"), [2, 5, 3], "EUR")) == Decimal("99.99")


def test_render_invoice():
    text = render_invoice(make_invoice(), instalments=3)
    assert "VAT 19 %" in text
    assert "Total                                        \u20ac900.99" in text
    assert text.count("\u20ac300.33") == 3
