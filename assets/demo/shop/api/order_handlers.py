"""/orders and /cart endpoints."""

from shop.api.http import created, ok
from shop.api.services import services
from shop.auth.decorators import require_auth
from shop.auth.session import bearer_token
from shop.orders.pricing import CATALOG


def catalog(request):
    return ok({sku: {"name": name, "price": str(price)} for sku, (name, price) in CATALOG.items()})


@require_auth
def list_orders(request):
    orders = services().orders.list_orders(bearer_token(request), request.query.get("status"))
    return ok({"orders": [o.to_dict() for o in orders]})


@require_auth
def get_order(request):
    order = services().orders.get_order(bearer_token(request), request.param_int("id"))
    return ok(order.to_dict())


@require_auth
def create_order(request):
    (items,) = request.require("items")
    lines = [(item["sku"], item.get("quantity", 1)) for item in items]
    order = services().orders.place_order(
        bearer_token(request),
        lines,
        coupon=request.body.get("coupon"),
        payment_method=request.body.get("payment_method"),
        payment_source=request.body.get("payment_source"),
    )
    return created(order.to_dict())


@require_auth
def cancel_order(request):
    order = services().orders.cancel_order(
        bearer_token(request), request.param_int("id"), request.body.get("reason", "customer request")
    )
    return ok(order.to_dict())


@require_auth
def view_cart(request):
    cart = services().carts.cart_for(bearer_token(request))
    return ok({"items": cart.preview()})


@require_auth
def add_to_cart(request):
    (sku,) = request.require("sku")
    cart = services().carts.cart_for(bearer_token(request))
    cart.add(sku, request.body.get("quantity", 1))
    return ok({"items": cart.preview()})


@require_auth
def checkout(request):
    token = bearer_token(request)
    cart = services().carts.cart_for(token)
    order = services().orders.place_order(
        token,
        cart.lines(),
        coupon=request.body.get("coupon"),
        payment_method=request.body.get("payment_method"),
        payment_source=request.body.get("payment_source"),
    )
    cart.clear()
    return created(order.to_dict())
