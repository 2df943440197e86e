from decimal import Decimal

import pytest

from shop.billing.gateway import CardGateway, PaymentGateway, WalletGateway
from shop.billing.money import add_tax, format_money, split_evenly, to_money
from shop.auth.tokens import issue_token, validate_token
from shop.errors import AuthError, PaymentError, PermissionDenied

from tests.conftest import DECLINED_CARD, TEST_CARD


class FakePayments:
    def __init__(self):
        self.rows = []

    def record(self, invoice_id, gateway, kind, amount, fee, reference):
        self.rows.append(dict(invoice_id=invoice_id, gateway=gateway, kind=kind, amount=amount, fee=fee))
        return len(self.rows)

    def for_invoice(self, invoice_id):
        return [r for r in self.rows if r["invoice_id"] == invoice_id]

    def net_paid(self, invoice_id):
        rows = self.for_invoice(invoice_id)
        return sum((r["amount"] if r["kind"] == "charge" else -r["amount"] for r in rows), Decimal("0"))


def invoice(amount="20.00", customer_id=1, invoice_id=1):
    return {"id": invoice_id, "amount": Decimal(amount), "customer_id": customer_id}


def test_money_helpers():
    assert to_money("1.005") == Decimal("1.01")
    assert add_tax(Decimal("10.00"), Decimal("0.08")) == (Decimal("0.80"), Decimal("10.80"))
    assert format_money(Decimal("3"), "EUR") == "\u20ac3.00"
    assert split_evenly(Decimal("10.00"), 3) == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]
    with pytest.raises(ValueError):
        split_evenly(Decimal("1"), 0)


def test_base_gateway_is_abstract():
    with pytest.raises(NotImplementedError):
        PaymentGateway(FakePayments()).charge(invoice(), {})


def test_card_gateway_charges_with_fee():
    payments = FakePayments()
    result = CardGateway(payments).charge(invoice("100.00"), TEST_CARD)
    assert result.fee == Decimal("3.20")
    assert result.reference.startswith("card_")
    assert payments.net_paid(1) == Decimal("100.00")


def test_card_gateway_rejects_bad_and_declined_cards():
    gateway = CardGateway(FakePayments())
    with pytest.raises(PaymentError, match="invalid"):
        gateway.charge(invoice(), {"number": "1234"})
    with pytest.raises(PaymentError, match="declined"):
        gateway.charge(invoice(), DECLINED_CARD)
    with pytest.raises(PaymentError, match="limit"):
        gateway.charge(invoice("20000.00"), TEST_CARD)


def test_wallet_requires_owner_token(clock):
    wallet = WalletGateway(FakePayments(), balances={1: Decimal("30.00")})
    owner = issue_token("user:1")
    stranger = issue_token("user:2")
    with pytest.raises(PermissionDenied):
        wallet.charge(invoice(), {"wallet_token": stranger})
    with pytest.raises(AuthError):
        wallet.charge(invoice(), {"wallet_token": "forged.token"})
    wallet.charge(invoice(), {"wallet_token": owner})
    assert wallet.balance(owner) == Decimal("10.00")
    with pytest.raises(PaymentError, match="insufficient"):
        wallet.charge(invoice(invoice_id=2), {"wallet_token": owner})
    wallet.refund(invoice(), Decimal("5.00"))
    assert wallet.balance(owner) == Decimal("15.00")


def test_wallet_top_up(clock):
    wallet = WalletGateway(FakePayments())
    token = issue_token("user:9")
    assert wallet.top_up(token, "12.5") == Decimal("12.50")
    with pytest.raises(PaymentError):
        wallet.top_up(token, 0)


def test_refund_cannot_exceed_paid():
    payments = FakePayments()
    gateway = CardGateway(payments)
    gateway.charge(invoice("10.00"), TEST_CARD)
    gateway.refund(invoice("10.00"), Decimal("4.00"))
    with pytest.raises(PaymentError):
        gateway.refund(invoice("10.00"), Decimal("7.00"))


def test_invoice_service_pay_and_render(app, ada_token):
    order = app.services.orders.place_order(ada_token, [("KBD-99", 1)])
    invoices = app.services.invoices
    inv = invoices.for_order(order.id)
    assert inv["status"] == "open" and inv["amount"] == order.total
    app.services.orders.pay_order(ada_token, order.id, "card", TEST_CARD)
    text = invoices.render_text(ada_token, inv["id"])
    assert "Status: paid" in text and "charge card" in text
    assert [i["id"] for i in invoices.invoices_for(ada_token)] == [inv["id"]]


def test_invoice_text_is_private(app, ada_token, grace_token, paid_order):
    inv = app.services.invoices.for_order(paid_order.id)
    with pytest.raises(PermissionDenied):
        app.services.invoices.render_text(grace_token, inv["id"])


def test_partial_refund_through_service(app, ada_token, paid_order):
    refunds = app.services.refunds
    result = refunds.refund_order(ada_token, paid_order.id, amount="5.00")
    assert result.amount == Decimal("5.00")
    rest = refunds.refund_order(ada_token, paid_order.id)
    assert rest.amount == paid_order.total - Decimal("5.00")
    assert app.services.orders.get_order(ada_token, paid_order.id).status == "refunded"
    assert app.services.invoices.for_order(paid_order.id)["status"] == "refunded"
    assert validate_token(ada_token).user_id == paid_order.customer_id


def test_goodwill_refund_needs_admin(app, ada_token, admin_token, paid_order):
    with pytest.raises(PermissionDenied):
        app.services.refunds.force_refund(ada_token, paid_order.id, "1.00")
    assert app.services.refunds.force_refund(admin_token, paid_order.id, "1.00").amount == Decimal("1.00")
