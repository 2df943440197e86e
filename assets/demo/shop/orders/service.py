"""The order lifecycle: place, read, cancel, ship.

``OrderService`` is the hub of the monolith: it owns an ``OrderRepository``
and talks to billing, refunds, notifications and plugin hooks.
"""

from decimal import Decimal

from shop.auth.session import authorize, ensure_owner_or_admin
from shop.auth.tokens import now, validate_token
from shop.billing.money import to_money
from shop.billing.refunds import RefundService
from shop.config import get_settings
from shop.errors import Conflict, PaymentError, ValidationError
from shop.orders.models import Order, OrderStatus
from shop.orders.pricing import compute_totals, price_lines
from shop.repository.orders import OrderRepository

SECONDS_PER_DAY = 86_400


def refundable_amount(order, invoice, payments):
    """How much of ``invoice`` can still be refunded for ``order``.

    Used by ``shop.billing.refunds`` (via a function-level import).
    """
    if order.status not in (OrderStatus.PAID, OrderStatus.SHIPPED):
        return Decimal("0.00")
    window = get_settings().refund_window_days * SECONDS_PER_DAY
    if order.status == OrderStatus.SHIPPED and now() - order.created_at > window:
        return Decimal("0.00")
    charged = sum((p["amount"] for p in payments if p["kind"] == "charge"), Decimal("0"))
    refunded = sum((p["amount"] for p in payments if p["kind"] == "refund"), Decimal("0"))
    return to_money(min(charged, invoice["amount"]) - refunded)


class OrderService:
    def __init__(self, db, billing, gateways, notifier=None, audit_repo=None, hooks=None):
        self.repo = OrderRepository(db)
        self.billing = billing
        self.refunds = RefundService(
            billing.invoices, gateways, self.repo, audit_repo=audit_repo, notifier=notifier
        )
        self.notifier = notifier
        self.audit = audit_repo
        self.hooks = hooks if hooks is not None else {}

    # -- commands ---------------------------------------------------------

    def place_order(self, token, lines, coupon=None, payment_method=None, payment_source=None):
        claims = validate_token(token)
        items = price_lines(lines)
        totals = compute_totals(items, coupon, get_settings().tax_rate)
        order = Order(
            customer_id=claims.user_id,
            items=items,
            coupon=coupon.upper() if coupon else None,
            created_at=now(),
            **totals,
        )
        order = self.repo.add(order)
        invoice = self.billing.create_for_order(order)
        self._run_hooks("order_placed", order)
        self._notify("order_placed", order)
        if payment_method:
            self.pay_order(token, order.id, payment_method, payment_source or {}, invoice=invoice)
        self._audit(claims.subject, "order.place", str(order.id))
        return self.repo.get(order.id)

    def pay_order(self, token, order_id, method, source, invoice=None):
        order = self.get_order(token, order_id)
        if order.status != OrderStatus.PENDING:
            raise Conflict("order is not awaiting payment", status=order.status)
        invoice = invoice or self.billing.for_order(order_id)
        try:
            result = self.billing.pay(invoice["id"], method, source)
        except PaymentError:
            self._run_hooks("payment_failed", order)
            raise
        self._transition(order, OrderStatus.PAID)
        return result

    def cancel_order(self, token, order_id, reason="customer request"):
        order = self.get_order(token, order_id)
        if order.status == OrderStatus.PAID:
            self.refunds.refund_order(token, order_id, reason=reason, mark_order=False)
        elif order.status == OrderStatus.PENDING:
            invoice = self.billing.for_order(order_id)
            if invoice is not None:
                self.billing.void(invoice["id"])
        self._transition(order, OrderStatus.CANCELLED)
        self._notify("order_cancelled", order, reason=reason)
        return self.repo.get(order_id)

    def ship_order(self, admin_token, order_id, carrier="acme-post"):
        claims = authorize(admin_token, "admin")
        order = self.repo.get(order_id)
        self._transition(order, OrderStatus.SHIPPED)
        self._audit(claims.subject, "order.ship", "%d:%s" % (order_id, carrier))
        self._notify("order_shipped", order, carrier=carrier)
        return self.repo.get(order_id)

    # -- queries ----------------------------------------------------------

    def get_order(self, token, order_id):
        order = self.repo.get(order_id)
        ensure_owner_or_admin(token, order.customer_id)
        return order

    def list_orders(self, token, status=None):
        claims = validate_token(token)
        orders = self.repo.list_for_customer(claims.user_id)
        if status:
            if status not in OrderStatus.TRANSITIONS:
                raise ValidationError("unknown status", status=status)
            orders = [o for o in orders if o.status == status]
        return orders

    def orders_awaiting_shipment(self, admin_token):
        authorize(admin_token, "admin")
        return self.repo.list_by_status(OrderStatus.PAID)

    def revenue(self, admin_token):
        authorize(admin_token, "admin")
        total = Decimal("0.00")
        for status in (OrderStatus.PAID, OrderStatus.SHIPPED):
            total += sum((o.total for o in self.repo.list_by_status(status)), Decimal("0"))
        return to_money(total)

    # -- internals --------------------------------------------------------

    def _transition(self, order, target):
        if not OrderStatus.can_move(order.status, target):
            raise Conflict("cannot move order", current=order.status, target=target)
        self.repo.update_status(order.id, target)
        order.status = target

    def _run_hooks(self, event, order):
        # Hooks are registered at runtime by plugins (see shop.plugins.loader);
        # nothing static says which functions end up in this list.
        for hook in self.hooks.get(event, ()):
            hook(order)

    def _notify(self, event, order, **extra):
        if self.notifier is None:
            return
        payload = {"order_id": order.id, "customer_id": order.customer_id, "total": str(order.total)}
        payload.update(extra)
        self.notifier.notify(event, payload)

    def _audit(self, actor, action, detail):
        if self.audit is not None:
            self.audit.record(actor, action, detail)
