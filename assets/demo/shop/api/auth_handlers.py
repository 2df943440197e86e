"""/login, /register, /logout, /token/refresh, /me."""

from shop.api.http import created, ok
from shop.api.services import services
from shop.auth.decorators import require_auth
from shop.auth.session import bearer_token
from shop.auth.tokens import refresh_token, validate_token


def register(request):
    email, password = request.require("email", "password")
    user_id = services().users.register(email, password, request.body.get("name", ""))
    return created({"id": user_id})


def login(request):
    email, password = request.require("email", "password")
    token = services().users.login(email, password)
    claims = validate_token(token)
    return ok({"token": token, "expires_at": claims.expires_at})


@require_auth
def logout(request):
    services().users.logout(bearer_token(request))
    return ok({"logged_out": True})


@require_auth
def refresh(request):
    return ok({"token": refresh_token(bearer_token(request))})


@require_auth
def me(request):
    return ok(services().users.whoami(bearer_token(request)))


@require_auth
def change_password(request):
    old, new = request.require("old_password", "new_password")
    services().users.change_password(bearer_token(request), old, new)
    return ok({"changed": True})


@require_auth
def set_notification_preferences(request):
    (channels,) = request.require("channels")
    prefs = services().notifier.set_preferences(bearer_token(request), channels)
    return ok({"channels": list(prefs)})
