"""ledgerly - Decimal invoice arithmetic."""

from .instalments import allocate, split_amount
from .invoice import Invoice
from .lines import LineItem
from .money import format_money, minor_unit, to_money
from .report import render_invoice

__all__ = [
    "Invoice",
    "LineItem",
    "allocate",
    "format_money",
    "minor_unit",
    "render_invoice",
    "split_amount",
    "to_money",
]

__version__ = "0.9.2"
