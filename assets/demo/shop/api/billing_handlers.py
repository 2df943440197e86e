"""/invoices, /wallet and refund endpoints."""

from shop.api.http import ok
from shop.api.services import services
from shop.auth.decorators import require_auth
from shop.auth.session import bearer_token, current_user_id
from shop.errors import PermissionDenied


@require_auth
def list_invoices(request):
    rows = services().invoices.invoices_for(bearer_token(request))
    return ok({"invoices": [dict(row, amount=str(row["amount"])) for row in rows]})


@require_auth
def invoice_text(request):
    text = services().invoices.render_text(bearer_token(request), request.param_int("id"))
    return ok({"text": text})


@require_auth
def pay_invoice(request):
    invoice = services().invoices.get(request.param_int("id"))
    if invoice["customer_id"] != current_user_id(request):
        raise PermissionDenied("not your invoice")
    (method,) = request.require("method")
    result = services().orders.pay_order(
        bearer_token(request), invoice["order_id"], method, request.body.get("source", {})
    )
    return ok(result.to_dict())


@require_auth
def request_refund(request):
    result = services().refunds.refund_order(
        bearer_token(request), request.param_int("id"), reason=request.body.get("reason", "")
    )
    return ok(result.to_dict())


@require_auth
def wallet_balance(request):
    wallet = services().gateways["wallet"]
    return ok({"balance": str(wallet.balance(bearer_token(request)))})


@require_auth
def wallet_top_up(request):
    (amount,) = request.require("amount")
    wallet = services().gateways["wallet"]
    return ok({"balance": str(wallet.top_up(bearer_token(request), amount))})
