"""Invoice line items."""

from dataclasses import dataclass
from decimal import Decimal

from .money import as_decimal

#: The standard VAT rate applied when a line does not say otherwise.
DEFAULT_TAX_RATE = Decimal("0.19")


@dataclass
class LineItem:
    """One line of an invoice.

    *quantity* and *unit_price* may have more decimal places than the
    currency (e.g. 7.5 hours at 96.00, or a unit price of 0.0125 for
    metered usage); the line's net amount is only rounded when the invoice
    is totalled.
    """

    description: str
    quantity: Decimal = Decimal(1)
    unit_price: Decimal = Decimal(0)
    tax_rate: Decimal = DEFAULT_TAX_RATE
    discount: Decimal = Decimal(0)  # fraction, e.g. Decimal("0.10") for 10 %

    def __post_init__(self):
        self.quantity = as_decimal(self.quantity)
        self.unit_price = as_decimal(self.unit_price)
        self.tax_rate = as_decimal(self.tax_rate)
        self.discount = as_decimal(self.discount)
        if self.quantity < 0:
            raise ValueError("quantity must not be negative")
        if not (0 <= self.discount <= 1):
            raise ValueError("discount must be between 0 and 1")
        if self.tax_rate < 0:
            raise ValueError("tax_rate must not be negative")

    @property
    def net(self):
        """The unrounded net amount of the line, after discount."""
        return self.quantity * self.unit_price * (1 - self.discount)
