import pytest

from shop.api.http import Request
from shop.auth.decorators import require_auth, require_role
from shop.auth.passwords import check_strength, hash_password, verify_password
from shop.auth.session import authorize, current_claims, ensure_owner_or_admin, is_authenticated
from shop.auth.tokens import (
    issue_token,
    peek_claims,
    refresh_token,
    revoke_token,
    token_subject,
    validate_token,
)
from shop.errors import AuthError, PermissionDenied


def test_issue_and_validate_round_trip(clock):
    token = issue_token("user:7", roles=("customer", "admin"))
    claims = validate_token(token)
    assert claims.subject == "user:7"
    assert claims.user_id == 7
    assert claims.has_role("admin")
    assert claims.expires_at == clock.now + 3600


def test_validate_accepts_bearer_prefix(clock):
    token = issue_token("user:1")
    assert validate_token("Bearer " + token).subject == "user:1"


@pytest.mark.parametrize("bad", ["", None, "abc", "a.b.c", "x."])
def test_validate_rejects_malformed(bad):
    with pytest.raises(AuthError):
        validate_token(bad)


def test_validate_rejects_tampered_claims(clock):
    token = issue_token("user:1")
    body, signature = token.split(".")
    forged = issue_token("user:2").split(".")[0]
    with pytest.raises(AuthError, match="signature"):
        validate_token(forged + "." + signature)
    assert body != forged


def test_expired_token(clock):
    token = issue_token("user:1", ttl=60)
    clock.advance(59)
    assert validate_token(token)
    clock.advance(1)
    with pytest.raises(AuthError, match="expired"):
        validate_token(token)


def test_revoke_and_refresh(clock):
    token = issue_token("user:3")
    fresh = refresh_token(token)
    with pytest.raises(AuthError, match="revoked"):
        validate_token(token)
    assert token_subject(fresh) == "user:3"
    revoke_token(fresh)
    assert not is_authenticated(fresh)


def test_peek_claims_does_not_verify(clock):
    token = issue_token("user:4")
    assert peek_claims(token[:-3] + "xyz")["sub"] == "user:4"
    assert peek_claims("garbage") == {}


def test_authorize_and_ownership(clock):
    customer = issue_token("user:5")
    admin = issue_token("user:6", roles=("admin",))
    assert authorize(admin, "admin").subject == "user:6"
    with pytest.raises(PermissionDenied):
        authorize(customer, "admin")
    assert ensure_owner_or_admin(customer, 5).user_id == 5
    assert ensure_owner_or_admin(admin, 5).user_id == 6
    with pytest.raises(PermissionDenied):
        ensure_owner_or_admin(customer, 6)


def test_require_auth_decorator(clock):
    @require_auth
    def handler(request):
        return request.claims.subject

    assert handler(Request.build("GET", "/x", token=issue_token("user:8"))) == "user:8"
    with pytest.raises(AuthError):
        handler(Request.build("GET", "/x"))
    assert handler.requires_auth


def test_require_role_decorator(clock):
    @require_role("admin")
    def handler(request):
        return "secret"

    admin_request = Request.build("GET", "/x", token=issue_token("user:1", ("admin",)))
    assert handler(admin_request) == "secret"
    assert current_claims(admin_request).subject == "user:1"
    with pytest.raises(PermissionDenied):
        handler(Request.build("GET", "/x", token=issue_token("user:2")))
    assert handler.requires_role == "admin"


def test_passwords():
    stored = hash_password("correct horse 9")
    assert verify_password("correct horse 9", stored)
    assert not verify_password("wrong", stored)
    assert not verify_password("x", "md5$nope")
    assert check_strength("short") and check_strength("onlyletters")
    assert check_strength("letters4and5digits") == []


def test_user_service_flow(app, ada_token):
    users = app.services.users
    assert users.whoami(ada_token)["email"] == "ada@acme-shop.example"
    users.change_password(ada_token, "lovelace1815", "analytical1843")
    with pytest.raises(AuthError):
        users.login("ada@acme-shop.example", "lovelace1815")
    assert validate_token(users.login("ada@acme-shop.example", "analytical1843"))
    outbox = app.services.notifier.channels["email"].outbox
    assert outbox[-1]["subject"] == "Your password was changed"


def test_deactivated_user_cannot_log_in(app, admin_token, grace_token):
    grace_id = validate_token(grace_token).user_id
    app.services.users.deactivate(admin_token, grace_id)
    with pytest.raises(AuthError, match="disabled"):
        app.services.users.login("grace@acme-shop.example", "hopper1906")
