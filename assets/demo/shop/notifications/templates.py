"""Message templates."""

from string import Template

TEMPLATES = {
    "order_placed": (
        "Order #$order_id received",
        "Thanks! We received order #$order_id totalling $$$total.",
    ),
    "order_cancelled": (
        "Order #$order_id cancelled",
        "Order #$order_id was cancelled ($reason).",
    ),
    "order_shipped": (
        "Order #$order_id shipped",
        "Order #$order_id is on its way with $carrier.",
    ),
    "invoice_paid": (
        "Payment received",
        "We received $$$amount for invoice #$invoice_id.",
    ),
    "refund_issued": (
        "Refund issued",
        "We refunded $$$amount for order #$order_id.",
    ),
    "password_changed": (
        "Your password was changed",
        "If this was not you, contact support immediately.",
    ),
}


def render(name, **context):
    subject, body = TEMPLATES[name]
    return Template(subject).safe_substitute(context), Template(body).safe_substitute(context)
