"""Per-customer shopping carts, kept in memory between requests."""

from collections import OrderedDict

from shop.auth.tokens import token_subject
from shop.orders.pricing import lookup, price_lines


class Cart:
    def __init__(self, owner):
        self.owner = owner
        self._lines = OrderedDict()

    def add(self, sku, quantity=1):
        lookup(sku)  # validate early
        self._lines[sku] = self._lines.get(sku, 0) + int(quantity)

    def remove(self, sku, quantity=None):
        if sku not in self._lines:
            return
        if quantity is None or self._lines[sku] <= quantity:
            del self._lines[sku]
        else:
            self._lines[sku] -= quantity

    def lines(self):
        return list(self._lines.items())

    def is_empty(self):
        return not self._lines

    def preview(self):
        return [item.to_dict() for item in price_lines(self.lines())] if self._lines else []

    def clear(self):
        self._lines.clear()


class CartStore:
    def __init__(self):
        self._carts = {}

    def cart_for(self, token):
        owner = token_subject(token)
        if owner not in self._carts:
            self._carts[owner] = Cart(owner)
        return self._carts[owner]

    def drop(self, token):
        self._carts.pop(token_subject(token), None)
