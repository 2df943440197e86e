"""Catalog lookup, coupons and order totals."""

from decimal import Decimal

from shop.billing.money import add_tax, to_money
from shop.errors import ValidationError
from shop.orders.models import LineItem

CATALOG = {
    "MUG-01": ("Ripple mug", Decimal("12.50")),
    "TEE-M": ("Call-graph tee (M)", Decimal("24.00")),
    "TEE-L": ("Call-graph tee (L)", Decimal("24.00")),
    "STK-10": ("Sticker pack", Decimal("4.99")),
    "BAG-01": ("Canvas tote", Decimal("18.00")),
    "KBD-99": ("Mechanical keyboard", Decimal("149.00")),
    "DSK-XL": ("Standing desk", Decimal("649.00")),
}

COUPONS = {
    "WELCOME10": ("percent", Decimal("10")),
    "FIVEOFF": ("fixed", Decimal("5.00")),
    "BIGSPENDER": ("percent", Decimal("15")),
}

MAX_QUANTITY = 50


def lookup(sku):
    try:
        return CATALOG[sku]
    except KeyError:
        raise ValidationError("unknown sku", sku=sku) from None


def price_lines(lines):
    """Turn ``[(sku, qty), ...]`` into priced LineItems."""
    if not lines:
        raise ValidationError("order has no items")
    items = []
    for sku, quantity in lines:
        quantity = int(quantity)
        if quantity <= 0 or quantity > MAX_QUANTITY:
            raise ValidationError("bad quantity", sku=sku, quantity=quantity)
        name, price = lookup(sku)
        items.append(LineItem(sku, name, quantity, price))
    return items


def coupon_discount(subtotal, code):
    if not code:
        return Decimal("0.00")
    try:
        kind, value = COUPONS[code.upper()]
    except KeyError:
        raise ValidationError("unknown coupon", coupon=code) from None
    if kind == "percent":
        return to_money(subtotal * value / Decimal("100"))
    return min(to_money(value), subtotal)


def compute_totals(items, coupon=None, tax_rate=Decimal("0.08")):
    subtotal = to_money(sum((item.line_total for item in items), Decimal("0")))
    discount = coupon_discount(subtotal, coupon)
    taxable = subtotal - discount
    tax, total = add_tax(taxable, tax_rate)
    return {"subtotal": subtotal, "discount": discount, "tax": tax, "total": total}
