"""Invoices: creation from orders, payment and rendering."""

from shop.auth.tokens import now, token_user_id
from shop.billing.money import format_money
from shop.billing.registry import choose_gateway
from shop.config import get_settings
from shop.errors import Conflict, PermissionDenied


class InvoiceService:
    def __init__(self, invoice_repo, payments_repo, gateways, notifier=None):
        self.invoices = invoice_repo
        self.payments = payments_repo
        self.gateways = gateways
        self.notifier = notifier

    def create_for_order(self, order):
        currency = get_settings().currency
        invoice_id = self.invoices.add(order.id, order.customer_id, order.total, currency, now())
        return self.invoices.get(invoice_id)

    def get(self, invoice_id):
        return self.invoices.get(invoice_id)

    def for_order(self, order_id):
        rows = self.invoices.for_order(order_id)
        return rows[-1] if rows else None

    def pay(self, invoice_id, method, source):
        invoice = self.invoices.get(invoice_id)
        if invoice["status"] != "open":
            raise Conflict("invoice is not open", status=invoice["status"])
        gateway = choose_gateway(self.gateways, method)
        result = gateway.charge(invoice, source)
        self.invoices.set_status(invoice_id, "paid")
        if self.notifier is not None:
            self.notifier.notify(
                "invoice_paid",
                {"invoice_id": invoice_id, "customer_id": invoice["customer_id"], "amount": str(result.amount)},
            )
        return result

    def void(self, invoice_id):
        invoice = self.invoices.get(invoice_id)
        if invoice["status"] == "open":
            self.invoices.set_status(invoice_id, "void")

    def invoices_for(self, token):
        """The caller's own invoices, newest first."""
        return self.invoices.for_customer(token_user_id(token))

    def render_text(self, token, invoice_id):
        invoice = self.invoices.get(invoice_id)
        if invoice["customer_id"] != token_user_id(token):
            raise PermissionDenied("not your invoice")
        lines = [
            "ACME SHOP -- INVOICE #%d" % invoice["id"],
            "Order:  #%d" % invoice["order_id"],
            "Status: %s" % invoice["status"],
            "Amount: %s" % format_money(invoice["amount"], invoice["currency"]),
        ]
        for payment in self.payments.for_invoice(invoice_id):
            lines.append("  %-6s %-6s %s" % (payment["kind"], payment["gateway"], format_money(payment["amount"])))
        return "\n".join(lines)
