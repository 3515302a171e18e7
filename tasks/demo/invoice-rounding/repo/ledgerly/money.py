"""Currency-aware rounding and formatting of :class:`~decimal.Decimal` amounts."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

#: Number of decimal places of each supported currency's minor unit.
CURRENCY_EXPONENTS = {
    "EUR": 2,
    "USD": 2,
    "GBP": 2,
    "CHF": 2,
    "JPY": 0,
    "KRW": 0,
    "BHD": 3,
    "KWD": 3,
}

CURRENCY_SYMBOLS = {"EUR": "\u20ac", "USD": "$", "GBP": "\u00a3", "JPY": "\u00a5"}


def exponent(currency):
    """Decimal places used by *currency*, e.g. ``2`` for ``"EUR"``."""
    try:
        return CURRENCY_EXPONENTS[currency.upper()]
    except KeyError:
        raise ValueError("unsupported currency: %r" % (currency,)) from None


def minor_unit(currency):
    """The smallest amount of *currency*, e.g. ``Decimal("0.01")`` for EUR."""
    return Decimal(1).scaleb(-exponent(currency))


def as_decimal(value):
    """Convert *value* to Decimal without going through binary floats."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        value = repr(value)
    try:
        return Decimal(value)
    except (InvalidOperation, TypeError):
        raise ValueError("not a valid amount: %r" % (value,)) from None


def to_money(value, currency):
    """Round *value* to the minor unit of *currency* (half up)."""
    return as_decimal(value).quantize(minor_unit(currency), rounding=ROUND_HALF_UP)


def format_money(amount, currency):
    """Format an amount for display, e.g. ``"€1,234.50"`` or ``"BHD 1.250"``."""
    amount = to_money(amount, currency)
    places = exponent(currency)
    sign = "-" if amount < 0 else ""
    number = "{:,.{p}f}".format(abs(amount), p=places)
    symbol = CURRENCY_SYMBOLS.get(currency.upper())
    if symbol:
        return "%s%s%s" % (sign, symbol, number)
    return "%s%s %s" % (sign, currency.upper(), number)
