"""Exception hierarchy shared by every package in the shop."""


class ShopError(Exception):
    """Base class; ``status`` is the HTTP status the API layer reports."""

    status = 500

    def __init__(self, message="", **details):
        super().__init__(message)
        self.message = message
        self.details = details

    def to_dict(self):
        body = {"error": type(self).__name__, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body


class ValidationError(ShopError):
    status = 400


class AuthError(ShopError):
    status = 401


class PermissionDenied(ShopError):
    status = 403


class NotFound(ShopError):
    status = 404


class Conflict(ShopError):
    status = 409


class PaymentError(ShopError):
    status = 402
