"""Payment gateways.

``PaymentGateway`` implements the shared charge/refund bookkeeping; the
subclasses validate their payment source and then defer to ``super()``.
All gateways are simulated in-process -- nothing here talks to a network.
"""

import hashlib
from decimal import Decimal

from shop.auth.tokens import validate_token
from shop.billing.money import to_money
from shop.errors import PaymentError, PermissionDenied


class PaymentResult:
    def __init__(self, payment_id, gateway, amount, fee, reference):
        self.payment_id = payment_id
        self.gateway = gateway
        self.amount = amount
        self.fee = fee
        self.reference = reference

    def to_dict(self):
        return {
            "payment_id": self.payment_id,
            "gateway": self.gateway,
            "amount": str(self.amount),
            "fee": str(self.fee),
            "reference": self.reference,
        }


class PaymentGateway:
    name = "base"
    max_amount = Decimal("10000.00")

    def __init__(self, payments_repo, fee_rate=Decimal("0"), fixed_fee=Decimal("0")):
        self.payments = payments_repo
        self.fee_rate = fee_rate
        self.fixed_fee = fixed_fee

    def fee_for(self, amount):
        return to_money(amount * self.fee_rate + self.fixed_fee)

    def charge(self, invoice, source):
        amount = invoice["amount"]
        self._check_amount(amount)
        reference = self._authorize(invoice, source)
        fee = self.fee_for(amount)
        payment_id = self.payments.record(invoice["id"], self.name, "charge", amount, fee, reference)
        return PaymentResult(payment_id, self.name, amount, fee, reference)

    def refund(self, invoice, amount, reason=""):
        amount = to_money(amount)
        paid = self.payments.net_paid(invoice["id"])
        if amount <= 0 or amount > paid:
            raise PaymentError("refund exceeds amount paid", paid=str(paid), requested=str(amount))
        reference = self._reference("refund", invoice["id"], amount, reason)
        payment_id = self.payments.record(invoice["id"], self.name, "refund", amount, Decimal("0"), reference)
        return PaymentResult(payment_id, self.name, amount, Decimal("0.00"), reference)

    def _check_amount(self, amount):
        if amount <= 0:
            raise PaymentError("amount must be positive")
        if amount > self.max_amount:
            raise PaymentError("amount above gateway limit", limit=str(self.max_amount))

    def _authorize(self, invoice, source):
        raise NotImplementedError("gateways must implement _authorize")

    def _reference(self, *parts):
        digest = hashlib.sha1(":".join(str(p) for p in (self.name,) + parts).encode()).hexdigest()
        return "%s_%s" % (self.name, digest[:12])


class CardGateway(PaymentGateway):
    name = "card"
    DECLINED_PREFIXES = ("4000000000000002",)

    def __init__(self, payments_repo):
        super().__init__(payments_repo, fee_rate=Decimal("0.029"), fixed_fee=Decimal("0.30"))

    def charge(self, invoice, source):
        number = str(source.get("number", "")).replace(" ", "")
        if not self.luhn_valid(number):
            raise PaymentError("invalid card number")
        if number.startswith(self.DECLINED_PREFIXES):
            raise PaymentError("card declined", last4=number[-4:])
        return super().charge(invoice, source)

    def _authorize(self, invoice, source):
        number = str(source["number"]).replace(" ", "")
        return self._reference("auth", invoice["id"], number[-4:])

    @staticmethod
    def luhn_valid(number):
        if not number.isdigit() or not 12 <= len(number) <= 19:
            return False
        total = 0
        for index, digit in enumerate(int(d) for d in reversed(number)):
            if index % 2 == 1:
                digit *= 2
                if digit > 9:
                    digit -= 9
            total += digit
        return total % 10 == 0


class WalletGateway(PaymentGateway):
    """Store credit. The wallet is unlocked by the customer's own token."""

    name = "wallet"

    def __init__(self, payments_repo, balances=None):
        super().__init__(payments_repo)
        self.balances = dict(balances or {})

    def balance(self, token):
        claims = validate_token(token)
        return self.balances.get(claims.user_id, Decimal("0.00"))

    def top_up(self, token, amount):
        claims = validate_token(token)
        amount = to_money(amount)
        if amount <= 0:
            raise PaymentError("top-up must be positive")
        self.balances[claims.user_id] = self.balances.get(claims.user_id, Decimal("0.00")) + amount
        return self.balances[claims.user_id]

    def charge(self, invoice, source):
        claims = validate_token(source.get("wallet_token"))
        if claims.user_id != invoice["customer_id"]:
            raise PermissionDenied("wallet belongs to someone else")
        if self.balances.get(claims.user_id, Decimal("0")) < invoice["amount"]:
            raise PaymentError("insufficient wallet balance")
        result = super().charge(invoice, source)
        self.balances[claims.user_id] -= invoice["amount"]
        return result

    def refund(self, invoice, amount, reason=""):
        result = super().refund(invoice, amount, reason)
        customer = invoice["customer_id"]
        self.balances[customer] = self.balances.get(customer, Decimal("0.00")) + result.amount
        return result

    def _authorize(self, invoice, source):
        return self._reference("wallet", invoice["id"], invoice["customer_id"])
