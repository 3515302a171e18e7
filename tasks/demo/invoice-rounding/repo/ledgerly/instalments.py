"""Splitting amounts into instalments and allocating them by weight."""

from decimal import Decimal

from .money import as_decimal, minor_unit, to_money


def split_amount(total, parts, currency):
    """Split *total* into *parts* instalments of (almost) equal size.

    Every instalment is a whole number of minor units of *currency*.  Any
    remainder from rounding is carried by the earliest instalments, so that
    the instalments always add up to *total* exactly and differ from each
    other by at most one minor unit.

    >>> split_amount(Decimal("100.00"), 4, "EUR")
    [Decimal('25.00'), Decimal('25.00'), Decimal('25.00'), Decimal('25.00')]
    """
    if int(parts) != parts or parts < 1:
        raise ValueError("parts must be a positive integer")
    total = to_money(total, currency)
    if total < 0:
        raise ValueError("cannot split a negative amount")
    share = to_money(total / parts, currency)
    return [share] * int(parts)


def allocate(total, weights, currency):
    """Allocate *total* proportionally to *weights*.

    Uses the largest-remainder method: each share is first rounded down to a
    whole minor unit, then the units left over go to the shares with the
    largest fractional parts (earlier shares win ties).  The result always
    adds up to *total*.

    >>> allocate(Decimal("10.00"), [1, 1, 1], "EUR")
    [Decimal('3.34'), Decimal('3.33'), Decimal('3.33')]
    """
    weights = [as_decimal(w) for w in weights]
    if not weights:
        raise ValueError("at least one weight is required")
    if any(w < 0 for w in weights) or sum(weights) == 0:
        raise ValueError("weights must be non-negative and not all zero")
    unit = minor_unit(currency)
    total_units = int(to_money(total, currency) / unit)
    weight_sum = sum(weights)

    exact = [Decimal(total_units) * w / weight_sum for w in weights]
    floors = [int(x) for x in exact]
    left_over = total_units - sum(floors)
    by_fraction = sorted(
        range(len(weights)), key=lambda i: (-(exact[i] - floors[i]), i)
    )
    for i in by_fraction[:left_over]:
        floors[i] += 1
    return [Decimal(units) * unit for units in floors]
