"""Cross-cutting request handling: error mapping, auth, request logging."""

import functools
import logging

from shop.auth.session import bearer_token
from shop.auth.tokens import peek_claims, validate_token
from shop.errors import AuthError, ShopError
from shop.api.http import Response

log = logging.getLogger("shop.api")

PUBLIC_PREFIXES = ("POST /login", "POST /register", "GET /health", "GET /catalog")


def handle_errors(fn):
    """Turn ShopError into a Response with the right status code."""

    @functools.wraps(fn)
    def wrapper(request):
        try:
            return fn(request)
        except ShopError as exc:
            return Response(exc.status, exc.to_dict())

    return wrapper


def authenticate(request, route_key):
    """Populate ``request.claims`` for non-public routes (defence in depth)."""
    if route_key.startswith(PUBLIC_PREFIXES):
        return None
    request.claims = validate_token(bearer_token(request))
    return request.claims


def optional_claims(request):
    """Claims if the request carries a valid token, otherwise None."""
    try:
        return validate_token(bearer_token(request))
    except AuthError:
        return None


def log_request(request, response):
    subject = peek_claims(request.headers.get("Authorization", "")[7:]).get("sub", "-")
    log.info("%s %s -> %d (%s)", request.method, request.path, response.status, subject)
