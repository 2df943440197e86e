import pytest

from shop.api.http import Request
from shop.api.routes import ROUTES, describe_routes, dispatch, match
from shop.auth.tokens import validate_token
from shop.errors import NotFound

from tests.conftest import TEST_CARD


def test_every_route_has_a_guard_description():
    rows = describe_routes()
    assert len(rows) == len(ROUTES)
    guards = {key: guard for key, _, guard in rows}
    assert guards["GET /health"] == "public"
    assert guards["GET /orders"] == "auth"
    assert guards["GET /admin/revenue"] == "admin"


def test_match_extracts_params():
    assert match("POST", "/orders/12/cancel") == ("POST /orders/{id}/cancel", {"id": "12"})
    with pytest.raises(NotFound):
        match("DELETE", "/orders")


def test_health_and_unknown_route(app):
    assert app.request("GET", "/health").body == {"status": "ok"}
    assert app.request("GET", "/nope").status == 404


def test_login_returns_valid_token(app):
    response = app.request("POST", "/login", body={"email": "grace@acme-shop.example", "password": "hopper1906"})
    assert response.ok
    assert validate_token(response.body["token"]).expires_at == response.body["expires_at"]
    bad = app.request("POST", "/login", body={"email": "grace@acme-shop.example", "password": "x"})
    assert bad.status == 401


def test_register_then_me(app):
    created = app.request("POST", "/register", body={"email": "Linus@Example.org", "password": "penguin1991"})
    assert created.status == 201
    token = app.request("POST", "/login", body={"email": "linus@example.org", "password": "penguin1991"}).body["token"]
    assert app.request("GET", "/me", token).body["email"] == "linus@example.org"
    assert app.request("POST", "/register", body={"email": "linus@example.org", "password": "penguin1991"}).status == 409


def test_protected_routes_need_token(app):
    assert app.request("GET", "/orders").status == 401
    assert app.request("GET", "/orders", "garbage").status == 401


def test_order_lifecycle_over_api(app, ada_token, admin_token):
    created = app.request(
        "POST", "/orders", ada_token,
        {"items": [{"sku": "KBD-99"}], "payment_method": "card", "payment_source": TEST_CARD},
    )
    assert created.status == 201, created.body
    order_id = created.body["id"]
    assert app.request("GET", "/orders/%d" % order_id, ada_token).body["status"] == "paid"
    listed = app.request("GET", "/orders", ada_token, query={"status": "paid"})
    assert [o["id"] for o in listed.body["orders"]] == [order_id]
    assert app.request("POST", "/admin/orders/%d/ship" % order_id, ada_token).status == 403
    assert app.request("POST", "/admin/orders/%d/ship" % order_id, admin_token).body["status"] == "shipped"
    assert app.request("GET", "/admin/shipments", admin_token).body["orders"] == []


def test_cart_checkout_and_invoice(app, ada_token):
    app.request("POST", "/cart", ada_token, {"sku": "TEE-M", "quantity": 2})
    assert len(app.request("GET", "/cart", ada_token).body["items"]) == 1
    order = app.request("POST", "/cart/checkout", ada_token, {"coupon": "FIVEOFF"})
    assert order.status == 201 and order.body["status"] == "pending"
    invoice_id = app.request("GET", "/invoices", ada_token).body["invoices"][0]["id"]
    paid = app.request("POST", "/invoices/%d/pay" % invoice_id, ada_token, {"method": "card", "source": TEST_CARD})
    assert paid.ok, paid.body
    assert "Status: paid" in app.request("GET", "/invoices/%d" % invoice_id, ada_token).body["text"]
    assert app.request("GET", "/cart", ada_token).body["items"] == []


def test_refund_and_cancel_over_api(app, ada_token, grace_token, paid_order):
    path = "/orders/%d" % paid_order.id
    assert app.request("POST", path + "/refund", grace_token).status == 403
    assert app.request("POST", path + "/refund", ada_token, {"reason": "broken"}).ok
    assert app.request("GET", path, ada_token).body["status"] == "refunded"
    assert app.request("POST", path + "/cancel", ada_token).status == 409


def test_wallet_endpoints(app, ada_token):
    assert app.request("GET", "/wallet", ada_token).body == {"balance": "50.00"}
    assert app.request("POST", "/wallet/top-up", ada_token, {"amount": "10"}).body == {"balance": "60.00"}


def test_refresh_logout(app, ada_token):
    fresh = app.request("POST", "/token/refresh", ada_token).body["token"]
    assert app.request("GET", "/me", ada_token).status == 401
    assert app.request("POST", "/logout", fresh).ok
    assert app.request("GET", "/me", fresh).status == 401


def test_admin_endpoints(app, admin_token, ada_token, paid_order):
    assert app.request("GET", "/admin/revenue", admin_token).body == {"revenue": str(paid_order.total)}
    audit = app.request("GET", "/admin/audit", admin_token, query={"limit": "3"}).body["entries"]
    assert len(audit) == 3
    goodwill = app.request("POST", "/admin/orders/%d/goodwill" % paid_order.id, admin_token, {"amount": "2.00"})
    assert goodwill.body["amount"] == "2.00"
    grace_id = app.user_ids[1]
    assert app.request("POST", "/admin/users/%d/deactivate" % grace_id, admin_token).ok
    assert app.request("GET", "/admin/fraud", admin_token).body == {"flags": []}
    assert app.request("GET", "/admin/fraud", ada_token).status == 403


def test_dispatch_sets_claims(app, ada_token):
    request = Request.build("GET", "/me", token=ada_token)
    response = dispatch(request)
    assert response.ok
    assert request.claims.subject == validate_token(ada_token).subject
