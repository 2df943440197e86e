"""Service locator used by the handlers.

``shop.api.app.create_app`` builds everything and calls ``configure``; the
handler modules only ever see ``services()``.
"""

from dataclasses import dataclass


@dataclass
class Services:
    users: object
    orders: object
    invoices: object
    refunds: object
    carts: object
    notifier: object
    gateways: dict
    audit: object


_current = None


def configure(services):
    global _current
    _current = services
    return services


def services():
    if _current is None:
        raise RuntimeError("shop.api.services.configure() was never called")
    return _current
