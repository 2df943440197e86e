"""Fraud screening: flag unusually large orders and repeated payment failures."""

from shop.config import get_settings

FLAGGED = []
FAILURES = {}
FAILURE_LIMIT = 3


def register(hooks):
    hooks.setdefault("order_placed", []).append(screen_order)
    hooks.setdefault("payment_failed", []).append(count_failure)


def screen_order(order):
    if order.total >= get_settings().big_order_threshold:
        FLAGGED.append((order.id, "large order"))
        return True
    return False


def count_failure(order):
    FAILURES[order.customer_id] = FAILURES.get(order.customer_id, 0) + 1
    if FAILURES[order.customer_id] >= FAILURE_LIMIT:
        FLAGGED.append((order.id, "repeated payment failures"))


def is_flagged(order_id):
    return any(flagged_id == order_id for flagged_id, _ in FLAGGED)


def reset():
    FLAGGED.clear()
    FAILURES.clear()
