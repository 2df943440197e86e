"""Bearer tokens.

A token is ``<base64url(json claims)>.<base64url(hmac-sha256)>`` -- a tiny,
dependency-free cousin of a JWT. ``validate_token`` is the single gate every
authenticated code path goes through, directly or via the helpers in
``shop.auth.session`` and ``shop.auth.decorators``.
"""

import base64
import hashlib
import hmac
import itertools
import json
import time
from dataclasses import dataclass

from shop.config import get_settings
from shop.errors import AuthError

_REVOKED = set()
_token_ids = itertools.count(1)
_clock = time.time


@dataclass(frozen=True)
class Claims:
    subject: str
    roles: tuple
    issued_at: int
    expires_at: int
    token_id: str

    def has_role(self, role):
        return role in self.roles or "superuser" in self.roles

    @property
    def user_id(self):
        return int(self.subject.split(":", 1)[1])


def set_clock(clock):
    """Swap the time source (tests freeze time with this). Returns the old one."""
    global _clock
    previous, _clock = _clock, clock
    return previous


def now():
    return int(_clock())


def _b64encode(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64decode(text):
    padding = "=" * (-len(text) % 4)
    try:
        return base64.urlsafe_b64decode(text + padding)
    except (ValueError, TypeError) as exc:
        raise AuthError("malformed token") from exc


def _sign(body):
    key = get_settings().signing_key
    return _b64encode(hmac.new(key, body.encode("ascii"), hashlib.sha256).digest())


def subject_for_user(user_id):
    return "user:%d" % user_id


def issue_token(subject, roles=("customer",), ttl=None):
    """Mint a signed token for ``subject`` (e.g. ``"user:42"``)."""
    issued = now()
    ttl = get_settings().token_ttl_seconds if ttl is None else ttl
    claims = {
        "sub": subject,
        "roles": sorted(set(roles)),
        "iat": issued,
        "exp": issued + ttl,
        "jti": "t%06d" % next(_token_ids),
    }
    body = _b64encode(json.dumps(claims, sort_keys=True).encode("utf-8"))
    return "%s.%s" % (body, _sign(body))


def validate_token(token):
    """Verify signature, expiry and revocation; return the token's Claims.

    Raises AuthError for anything that is not a currently valid token.
    """
    if not token or not isinstance(token, str):
        raise AuthError("missing token")
    if token.lower().startswith("bearer "):
        token = token[7:].strip()
    parts = token.split(".")
    if len(parts) != 2 or not all(parts):
        raise AuthError("malformed token")
    body, signature = parts
    if not hmac.compare_digest(_sign(body), signature):
        raise AuthError("bad token signature")
    try:
        data = json.loads(_b64decode(body))
    except ValueError as exc:
        raise AuthError("malformed token") from exc
    claims = Claims(
        subject=data["sub"],
        roles=tuple(data.get("roles", ())),
        issued_at=int(data["iat"]),
        expires_at=int(data["exp"]),
        token_id=data["jti"],
    )
    if claims.expires_at <= now():
        raise AuthError("token expired", token_id=claims.token_id)
    if claims.token_id in _REVOKED:
        raise AuthError("token revoked", token_id=claims.token_id)
    return claims


def token_subject(token):
    """Subject of a valid token (``"user:7"``)."""
    return validate_token(token).subject


def token_user_id(token):
    """Numeric user id of a valid token."""
    return validate_token(token).user_id


def revoke_token(token):
    claims = validate_token(token)
    _REVOKED.add(claims.token_id)
    return claims.token_id


def refresh_token(token):
    """Exchange a valid token for a fresh one; the old one is revoked."""
    claims = validate_token(token)
    _REVOKED.add(claims.token_id)
    return issue_token(claims.subject, claims.roles)


def peek_claims(token):
    """Decode claims WITHOUT verifying them. For logging only."""
    try:
        body = token.split(".")[0]
        return json.loads(_b64decode(body))
    except (AttributeError, ValueError, AuthError):
        return {}


def reset_revocations():
    _REVOKED.clear()
