"""User accounts: registration, login, profile and admin operations."""

from shop.auth.passwords import check_strength, hash_password, verify_password
from shop.auth.session import authorize
from shop.auth.tokens import issue_token, revoke_token, subject_for_user, validate_token
from shop.errors import AuthError, Conflict, NotFound, ValidationError


class UserService:
    def __init__(self, users_repo, audit_repo=None, notifier=None):
        self.users = users_repo
        self.audit = audit_repo
        self.notifier = notifier

    def register(self, email, password, name="", roles=("customer",)):
        email = email.strip().lower()
        if "@" not in email:
            raise ValidationError("invalid email", email=email)
        problems = check_strength(password)
        if problems:
            raise ValidationError("weak password", problems=problems)
        if self.users.by_email(email) is not None:
            raise Conflict("email already registered", email=email)
        user_id = self.users.add(email, hash_password(password), name, roles)
        self._audit(subject_for_user(user_id), "user.register", email)
        return user_id

    def login(self, email, password):
        user = self.users.by_email(email.strip().lower())
        if user is None or not verify_password(password, user["password_hash"]):
            raise AuthError("invalid credentials")
        if not user["active"]:
            raise AuthError("account disabled")
        roles = tuple(user["roles"].split(","))
        self._audit(subject_for_user(user["id"]), "user.login", email)
        return issue_token(subject_for_user(user["id"]), roles)

    def logout(self, token):
        return revoke_token(token)

    def whoami(self, token):
        claims = validate_token(token)
        user = self.users.get(claims.user_id)
        if user is None:
            raise NotFound("user vanished", subject=claims.subject)
        return {
            "id": user["id"],
            "email": user["email"],
            "name": user["name"],
            "roles": list(claims.roles),
        }

    def change_password(self, token, old_password, new_password):
        claims = validate_token(token)
        user = self.users.get(claims.user_id)
        if user is None or not verify_password(old_password, user["password_hash"]):
            raise AuthError("invalid credentials")
        problems = check_strength(new_password)
        if problems:
            raise ValidationError("weak password", problems=problems)
        self.users.set_password(user["id"], hash_password(new_password))
        self._audit(claims.subject, "user.password_changed", "")
        if self.notifier is not None:
            self.notifier.notify("password_changed", {"user_id": user["id"], "email": user["email"]})

    def deactivate(self, admin_token, user_id):
        claims = authorize(admin_token, "admin")
        if self.users.get(user_id) is None:
            raise NotFound("no such user", user_id=user_id)
        self.users.set_active(user_id, False)
        self._audit(claims.subject, "user.deactivate", str(user_id))

    def _audit(self, actor, action, detail):
        if self.audit is not None:
            self.audit.record(actor, action, detail)
