"""Helpers that pull identity out of a request or a raw token.

Most call sites do not call ``validate_token`` themselves; they go through
one of these, which is exactly why changing ``validate_token`` is scary.
"""

from shop.auth.tokens import Claims, validate_token
from shop.errors import AuthError, PermissionDenied


def bearer_token(request):
    header = request.headers.get("Authorization", "")
    if not header:
        raise AuthError("missing Authorization header")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value:
        raise AuthError("expected a Bearer token")
    return value.strip()


def current_claims(request):
    """Claims for ``request``, validated once and cached on the request."""
    cached = getattr(request, "claims", None)
    if isinstance(cached, Claims):
        return cached
    claims = validate_token(bearer_token(request))
    request.claims = claims
    return claims


def current_user_id(request):
    return current_claims(request).user_id


def is_authenticated(token):
    try:
        validate_token(token)
    except AuthError:
        return False
    return True


def authorize(token, role):
    """Validate ``token`` and require ``role``; returns the claims."""
    claims = validate_token(token)
    if not claims.has_role(role):
        raise PermissionDenied("role %r required" % role, subject=claims.subject)
    return claims


def ensure_owner_or_admin(token, owner_id):
    """The caller must own the resource or be an admin."""
    claims = validate_token(token)
    if claims.user_id != owner_id and not claims.has_role("admin"):
        raise PermissionDenied("not your resource")
    return claims
