"""Plain-text rendering of invoices."""

from .money import format_money


def _percent(rate):
    return "{:f} %".format((rate * 100).normalize())


def render_invoice(invoice, instalments=1):
    """Render *invoice* as plain text, including its payment plan."""
    cur = invoice.currency
    width = 52
    out = ["Invoice %s" % invoice.number, "Issued %s" % invoice.issued.isoformat(), ""]
    for line in invoice.lines:
        out.append(
            "{:<36}{:>16}".format(line.description[:35], format_money(line.net, cur))
        )
    out.append("-" * width)
    out.append("{:<36}{:>16}".format("Subtotal", format_money(invoice.subtotal, cur)))
    for rate, tax in invoice.tax_by_rate().items():
        out.append("{:<36}{:>16}".format("VAT " + _percent(rate), format_money(tax, cur)))
    out.append("{:<36}{:>16}".format("Total", format_money(invoice.total, cur)))
    if instalments > 1:
        out.append("")
        out.append("Payment plan:")
        for due, amount in invoice.payment_plan(instalments):
            out.append("  {}  {:>16}".format(due.isoformat(), format_money(amount, cur)))
    else:
        out.append("Due %s" % invoice.due.isoformat())
    return "\n".join(out)
