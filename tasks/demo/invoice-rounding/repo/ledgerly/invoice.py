"""The :class:`Invoice`."""

from collections import defaultdict
from datetime import date, timedelta

from .instalments import split_amount
from .money import exponent, to_money


class Invoice:
    """An invoice in a single currency.

    Taxes are computed the way our accounting package does it: line net
    amounts are summed per tax rate, each per-rate subtotal is rounded, and
    the tax for each rate is computed on that rounded subtotal.  Rounding
    each line separately would make the invoice differ from the books by a
    few cents on long invoices.
    """

    def __init__(self, number, currency="EUR", issued=None, payment_terms_days=14):
        self.number = number
        self.currency = currency.upper()
        exponent(self.currency)  # validate
        self.issued = issued or date.today()
        self.payment_terms_days = payment_terms_days
        self.lines = []

    def add(self, line):
        self.lines.append(line)
        return line

    # -- totals -----------------------------------------------------------

    def net_by_rate(self):
        """Rounded net subtotals keyed by tax rate, highest rate first."""
        sums = defaultdict(lambda: 0)
        for line in self.lines:
            sums[line.tax_rate] += line.net
        return {
            rate: to_money(amount, self.currency)
            for rate, amount in sorted(sums.items(), reverse=True)
        }

    def tax_by_rate(self):
        return {
            rate: to_money(net * rate, self.currency)
            for rate, net in self.net_by_rate().items()
        }

    @property
    def subtotal(self):
        return sum(self.net_by_rate().values(), to_money(0, self.currency))

    @property
    def tax_total(self):
        return sum(self.tax_by_rate().values(), to_money(0, self.currency))

    @property
    def total(self):
        return self.subtotal + self.tax_total

    @property
    def due(self):
        return self.issued + timedelta(days=self.payment_terms_days)

    # -- payment ----------------------------------------------------------

    def payment_plan(self, instalments, every_days=30):
        """Return ``[(due_date, amount), ...]`` for paying in instalments.

        The first instalment is due on :attr:`due`, the following ones every
        *every_days* days after that.  The amounts add up to :attr:`total`.
        """
        amounts = split_amount(self.total, instalments, self.currency)
        return [
            (self.due + timedelta(days=i * every_days), amount)
            for i, amount in enumerate(amounts)
        ]
