"""Decimal money helpers. Never use floats for money."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_money(value):
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def add_tax(amount, rate):
    """Return ``(tax, gross)`` for a net ``amount``."""
    tax = to_money(Decimal(amount) * Decimal(rate))
    return tax, to_money(Decimal(amount) + tax)


def format_money(amount, currency="USD"):
    symbol = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3"}.get(currency, currency + " ")
    return "%s%s" % (symbol, to_money(amount))


def split_evenly(amount, parts):
    """Split into ``parts`` cent-exact shares; leftovers go to the first shares."""
    if parts <= 0:
        raise ValueError("parts must be positive")
    cents = int(to_money(amount) * 100)
    base, extra = divmod(cents, parts)
    return [Decimal(base + (1 if i < extra else 0)) / 100 for i in range(parts)]
