"""/admin endpoints. Every handler needs the ``admin`` role."""

from shop.api.http import ok
from shop.api.services import services
from shop.auth.decorators import require_role
from shop.auth.session import bearer_token
from shop.plugins import fraud


@require_role("admin")
def ship_order(request):
    order = services().orders.ship_order(
        bearer_token(request), request.param_int("id"), request.body.get("carrier", "acme-post")
    )
    return ok(order.to_dict())


@require_role("admin")
def pending_shipments(request):
    orders = services().orders.orders_awaiting_shipment(bearer_token(request))
    return ok({"orders": [o.to_dict() for o in orders]})


@require_role("admin")
def revenue(request):
    return ok({"revenue": str(services().orders.revenue(bearer_token(request)))})


@require_role("admin")
def deactivate_user(request):
    services().users.deactivate(bearer_token(request), request.param_int("id"))
    return ok({"deactivated": request.param_int("id")})


@require_role("admin")
def goodwill_refund(request):
    (amount,) = request.require("amount")
    result = services().refunds.force_refund(bearer_token(request), request.param_int("id"), amount)
    return ok(result.to_dict())


@require_role("admin")
def audit_log(request):
    limit = int(request.query.get("limit", 20))
    return ok({"entries": services().audit.recent(limit)})


@require_role("admin")
def fraud_flags(request):
    return ok({"flags": [{"order_id": oid, "reason": why} for oid, why in fraud.FLAGGED]})
