"""The route table and the dispatcher.

``ROUTES`` maps ``"METHOD /pattern"`` to a handler; ``dispatch`` looks the
handler up at runtime and calls ``ROUTES[key](request)``.
"""

from shop.api import admin_handlers as admin
from shop.api import auth_handlers as auth
from shop.api import billing_handlers as billing
from shop.api import order_handlers as orders
from shop.api.http import Response, ok
from shop.api.middleware import authenticate, handle_errors, log_request
from shop.errors import NotFound


def health(request):
    return ok({"status": "ok"})


ROUTES = {
    "GET /health": health,
    "GET /catalog": orders.catalog,
    "POST /register": auth.register,
    "POST /login": auth.login,
    "POST /logout": auth.logout,
    "POST /token/refresh": auth.refresh,
    "GET /me": auth.me,
    "POST /me/password": auth.change_password,
    "PUT /me/notifications": auth.set_notification_preferences,
    "GET /cart": orders.view_cart,
    "POST /cart": orders.add_to_cart,
    "POST /cart/checkout": orders.checkout,
    "GET /orders": orders.list_orders,
    "POST /orders": orders.create_order,
    "GET /orders/{id}": orders.get_order,
    "POST /orders/{id}/cancel": orders.cancel_order,
    "POST /orders/{id}/refund": billing.request_refund,
    "GET /invoices": billing.list_invoices,
    "GET /invoices/{id}": billing.invoice_text,
    "POST /invoices/{id}/pay": billing.pay_invoice,
    "GET /wallet": billing.wallet_balance,
    "POST /wallet/top-up": billing.wallet_top_up,
    "GET /admin/shipments": admin.pending_shipments,
    "POST /admin/orders/{id}/ship": admin.ship_order,
    "POST /admin/orders/{id}/goodwill": admin.goodwill_refund,
    "POST /admin/users/{id}/deactivate": admin.deactivate_user,
    "GET /admin/revenue": admin.revenue,
    "GET /admin/audit": admin.audit_log,
    "GET /admin/fraud": admin.fraud_flags,
}


def match(method, path):
    """Find the route key for ``method path``; returns ``(key, params)``."""
    segments = [s for s in path.split("/") if s]
    for key in ROUTES:
        route_method, pattern = key.split(" ", 1)
        if route_method != method:
            continue
        parts = [s for s in pattern.split("/") if s]
        if len(parts) != len(segments):
            continue
        params = {}
        for part, segment in zip(parts, segments):
            if part.startswith("{") and part.endswith("}"):
                params[part[1:-1]] = segment
            elif part != segment:
                break
        else:
            return key, params
    raise NotFound("no route", method=method, path=path)


@handle_errors
def dispatch(request):
    key, params = match(request.method, request.path)
    request.params = params
    authenticate(request, key)
    return ROUTES[key](request)


def handle(request):
    response = dispatch(request)
    log_request(request, response)
    return response


def describe_routes():
    rows = []
    for key, handler in sorted(ROUTES.items()):
        guard = getattr(handler, "requires_role", None) or (
            "auth" if getattr(handler, "requires_auth", False) else "public"
        )
        rows.append((key, handler.__module__ + "." + handler.__name__, guard))
    return rows


def not_found(request):
    return Response(404, {"error": "NotFound"})
