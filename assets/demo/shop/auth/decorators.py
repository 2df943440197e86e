"""Decorators for API handlers: ``@require_auth`` and ``@require_role(...)``."""

import functools

from shop.auth.session import bearer_token, current_claims
from shop.auth.tokens import validate_token
from shop.errors import PermissionDenied


def require_auth(handler):
    """Reject the request unless it carries a valid bearer token."""

    @functools.wraps(handler)
    def wrapper(request, *args, **kwargs):
        request.claims = validate_token(bearer_token(request))
        return handler(request, *args, **kwargs)

    wrapper.requires_auth = True
    return wrapper


def require_role(role):
    """Reject the request unless the caller's token carries ``role``."""

    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(request, *args, **kwargs):
            claims = current_claims(request)
            if not claims.has_role(role):
                raise PermissionDenied("role %r required" % role)
            return handler(request, *args, **kwargs)

        wrapper.requires_role = role
        return wrapper

    return decorator
