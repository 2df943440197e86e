"""Refunds.

Note the function-level import in ``refund_order``: ``shop.orders.service``
imports this module at load time, and refunds need the order rules that live
there, so the dependency is deferred to call time to break the cycle.
"""

from shop.auth.session import authorize, ensure_owner_or_admin
from shop.billing.money import to_money
from shop.billing.registry import choose_gateway
from shop.errors import Conflict, NotFound


class RefundService:
    def __init__(self, invoice_repo, gateways, orders_repo, audit_repo=None, notifier=None):
        self.invoices = invoice_repo
        self.gateways = gateways
        self.orders = orders_repo
        self.audit = audit_repo
        self.notifier = notifier

    def refund_order(self, token, order_id, reason="", amount=None, mark_order=True):
        """Refund (part of) a paid order.

        A full refund moves the order to ``refunded`` unless the caller (the
        order service, when cancelling) manages the order status itself.
        """
        from shop.orders.models import OrderStatus
        from shop.orders.service import refundable_amount  # deferred: import cycle

        order = self.orders.get(order_id)
        claims = ensure_owner_or_admin(token, order.customer_id)
        invoices = [inv for inv in self.invoices.for_order(order_id) if inv["status"] == "paid"]
        if not invoices:
            raise NotFound("no paid invoice for order", order_id=order_id)
        invoice = invoices[-1]
        payments = self._payments_for(invoice)
        charges = [p for p in payments if p["kind"] == "charge"]
        gateway_name = charges[0]["gateway"] if charges else "card"
        limit = refundable_amount(order, invoice, payments)
        amount = limit if amount is None else to_money(amount)
        if amount > limit:
            raise Conflict("refund above refundable amount", limit=str(limit))
        result = choose_gateway(self.gateways, gateway_name).refund(invoice, amount, reason)
        if amount == limit:
            self.invoices.set_status(invoice["id"], "refunded")
            if mark_order:
                self.orders.update_status(order_id, OrderStatus.REFUNDED)
        if self.audit is not None:
            self.audit.record(claims.subject, "order.refund", "%d:%s" % (order_id, amount))
        if self.notifier is not None:
            self.notifier.notify(
                "refund_issued",
                {"order_id": order_id, "customer_id": order.customer_id, "amount": str(amount)},
            )
        return result

    def force_refund(self, admin_token, order_id, amount, reason="goodwill"):
        authorize(admin_token, "admin")
        return self.refund_order(admin_token, order_id, reason=reason, amount=amount)

    def _payments_for(self, invoice):
        gateway = next(iter(self.gateways.values()))
        return gateway.payments.for_invoice(invoice["id"])
