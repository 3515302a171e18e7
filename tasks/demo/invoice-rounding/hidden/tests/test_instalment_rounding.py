from datetime import date
from decimal import Decimal

from ledgerly import Invoice, LineItem, render_invoice, split_amount


def test_split_does_not_lose_a_cent():
    parts = split_amount(Decimal("100.00"), 3, "EUR")
    assert parts == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    assert sum(parts) == Decimal("100.00")


def test_split_does_not_gain_a_cent():
    parts = split_amount(Decimal("200.00"), 3, "EUR")
    assert parts == [Decimal("66.67"), Decimal("66.67"), Decimal("66.66")]
    assert sum(parts) == Decimal("200.00")


def test_split_invariants_across_currencies():
    cases = [
        (Decimal("10000"), 3, "JPY"),
        (Decimal("1.000"), 7, "BHD"),
        (Decimal("0.05"), 6, "USD"),
        (Decimal("1234.57"), 12, "EUR"),
        (Decimal("999.99"), 11, "GBP"),
    ]
    for total, n, currency in cases:
        parts = split_amount(total, n, currency)
        assert len(parts) == n
        assert sum(parts) == total, (total, n, currency, parts)
        assert max(parts) - min(parts) <= Decimal(1).scaleb(-{"JPY": 0, "BHD": 3}.get(currency, 2))
        assert parts == sorted(parts, reverse=True)
    assert split_amount(Decimal("10000"), 3, "JPY") == [Decimal("3334"), Decimal("3333"), Decimal("3333")]


def test_payment_plan_adds_up_to_invoice_total():
    invoice = Invoice("INV-3001", currency="EUR", issued=date(2024, 2, 1))
    invoice.add(LineItem("Annual support", quantity=1, unit_price=Decimal("1037.45")))
    assert invoice.total == Decimal("1234.57")
    plan = invoice.payment_plan(12)
    assert sum(amount for _, amount in plan) == invoice.total
    assert plan[0][1] == Decimal("102.89")
    assert plan[-1][1] == Decimal("102.88")
    text = render_invoice(invoice, instalments=12)
    assert text.count("\u20ac102.89") == 1


def test_even_split_unchanged():
    assert split_amount(Decimal("90.00"), 3, "EUR") == [Decimal("30.00")] * 3
    assert split_amount(Decimal("0.00"), 2, "EUR") == [Decimal("0.00")] * 2
