from decimal import Decimal

import pytest

from shop.auth.tokens import issue_token, validate_token
from shop.errors import AuthError, Conflict, PaymentError, PermissionDenied, ValidationError
from shop.orders.cart import Cart, CartStore
from shop.orders.models import OrderStatus
from shop.orders.pricing import compute_totals, coupon_discount, price_lines
from shop.orders.service import refundable_amount
from shop.plugins import fraud, loyalty

from tests.conftest import DECLINED_CARD, TEST_CARD


def test_pricing_and_coupons():
    items = price_lines([("MUG-01", 2), ("STK-10", 1)])
    totals = compute_totals(items, "fiveoff", Decimal("0.10"))
    assert totals == {
        "subtotal": Decimal("29.99"),
        "discount": Decimal("5.00"),
        "tax": Decimal("2.50"),
        "total": Decimal("27.49"),
    }
    assert coupon_discount(Decimal("3.00"), "FIVEOFF") == Decimal("3.00")
    with pytest.raises(ValidationError):
        coupon_discount(Decimal("10"), "NOPE")
    with pytest.raises(ValidationError):
        price_lines([("MUG-01", 0)])
    with pytest.raises(ValidationError):
        price_lines([])


def test_status_transitions():
    assert OrderStatus.can_move(OrderStatus.PENDING, OrderStatus.PAID)
    assert not OrderStatus.can_move(OrderStatus.CANCELLED, OrderStatus.PAID)


def test_place_order_unpaid(app, ada_token):
    order = app.services.orders.place_order(ada_token, [("TEE-M", 1)], coupon="welcome10")
    assert order.status == OrderStatus.PENDING
    assert order.coupon == "WELCOME10"
    assert order.customer_id == validate_token(ada_token).user_id
    assert [o.id for o in app.services.orders.list_orders(ada_token)] == [order.id]


def test_place_order_paid_by_card_awards_loyalty(app, ada_token, paid_order):
    assert paid_order.status == OrderStatus.PAID
    assert loyalty.points_for(ada_token) == int(paid_order.total)
    assert app.services.orders.list_orders(ada_token, status="paid")[0].id == paid_order.id


def test_place_order_rejects_bad_token(app):
    with pytest.raises(AuthError):
        app.services.orders.place_order("not-a-token", [("MUG-01", 1)])


def test_place_order_with_wallet(app, ada_token):
    order = app.services.orders.place_order(
        ada_token, [("STK-10", 2)], payment_method="wallet", payment_source={"wallet_token": ada_token}
    )
    assert order.status == OrderStatus.PAID
    assert app.services.gateways["wallet"].balance(ada_token) == Decimal("50.00") - order.total


def test_failed_payment_leaves_order_pending_and_counts(app, ada_token):
    orders = app.services.orders
    order = orders.place_order(ada_token, [("BAG-01", 1)])
    for _ in range(3):
        with pytest.raises(PaymentError):
            orders.pay_order(ada_token, order.id, "card", DECLINED_CARD)
    assert orders.get_order(ada_token, order.id).status == OrderStatus.PENDING
    assert fraud.is_flagged(order.id)


def test_other_customers_cannot_see_order(app, grace_token, paid_order):
    with pytest.raises(PermissionDenied):
        app.services.orders.get_order(grace_token, paid_order.id)


def test_cancel_paid_order_refunds(app, ada_token, paid_order):
    cancelled = app.services.orders.cancel_order(ada_token, paid_order.id)
    assert cancelled.status == OrderStatus.CANCELLED
    inv = app.services.invoices.for_order(paid_order.id)
    assert inv["status"] == "refunded"
    subjects = [m["subject"] for m in app.services.notifier.channels["email"].outbox]
    assert "Refund issued" in subjects and "Order #%d cancelled" % paid_order.id in subjects


def test_cancel_pending_order_voids_invoice(app, ada_token):
    order = app.services.orders.place_order(ada_token, [("MUG-01", 1)])
    app.services.orders.cancel_order(ada_token, order.id)
    assert app.services.invoices.for_order(order.id)["status"] == "void"
    with pytest.raises(Conflict):
        app.services.orders.cancel_order(ada_token, order.id)


def test_ship_requires_admin(app, ada_token, admin_token, paid_order):
    with pytest.raises(PermissionDenied):
        app.services.orders.ship_order(ada_token, paid_order.id)
    shipped = app.services.orders.ship_order(admin_token, paid_order.id, carrier="parcelfox")
    assert shipped.status == OrderStatus.SHIPPED
    sms = app.services.notifier.channels["sms"].outbox
    assert "parcelfox" in sms[-1]["body"]


def test_refund_window_closes_after_shipping(app, clock, admin_token, ada_token, paid_order):
    app.services.orders.ship_order(admin_token, paid_order.id)
    order = app.services.orders.get_order(ada_token, paid_order.id)
    invoice = app.services.invoices.for_order(order.id)
    payments = app.services.gateways["card"].payments.for_invoice(invoice["id"])
    assert refundable_amount(order, invoice, payments) == order.total
    clock.advance(31 * 86_400)
    fresh_admin = issue_token("user:3", ("admin",))
    assert refundable_amount(order, invoice, payments) == Decimal("0.00")
    with pytest.raises(Conflict):
        app.services.refunds.refund_order(fresh_admin, order.id, amount="1.00")


def test_big_orders_are_flagged(app, ada_token):
    order = app.services.orders.place_order(ada_token, [("DSK-XL", 2)])
    assert fraud.is_flagged(order.id)


def test_revenue_and_queue(app, admin_token, paid_order):
    orders = app.services.orders
    assert orders.revenue(admin_token) == paid_order.total
    assert [o.id for o in orders.orders_awaiting_shipment(admin_token)] == [paid_order.id]


def test_cart_store(app, ada_token, grace_token):
    carts = CartStore()
    carts.cart_for(ada_token).add("MUG-01", 2)
    carts.cart_for(ada_token).add("MUG-01")
    assert carts.cart_for(ada_token).lines() == [("MUG-01", 3)]
    assert carts.cart_for(grace_token).is_empty()
    carts.drop(ada_token)
    assert carts.cart_for(ada_token).is_empty()
    cart = Cart("user:x")
    cart.add("TEE-L", 3)
    cart.remove("TEE-L", 1)
    assert cart.lines() == [("TEE-L", 2)]
    cart.remove("TEE-L")
    assert cart.preview() == []
