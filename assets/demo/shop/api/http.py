"""Minimal request/response types (the real deployment wraps these in WSGI)."""

import json
from dataclasses import dataclass, field


@dataclass
class Request:
    method: str
    path: str
    headers: dict = field(default_factory=dict)
    body: dict = field(default_factory=dict)
    query: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    claims: object = None

    @classmethod
    def build(cls, method, path, token=None, body=None, query=None):
        headers = {"Authorization": "Bearer " + token} if token else {}
        return cls(method.upper(), path, headers, body or {}, query or {})

    def param_int(self, name):
        from shop.errors import ValidationError

        try:
            return int(self.params[name])
        except (KeyError, ValueError):
            raise ValidationError("bad path parameter", name=name) from None

    def require(self, *names):
        from shop.errors import ValidationError

        missing = [n for n in names if n not in self.body]
        if missing:
            raise ValidationError("missing fields", fields=missing)
        return [self.body[n] for n in names]


@dataclass
class Response:
    status: int
    body: object = None
    headers: dict = field(default_factory=dict)

    @property
    def ok(self):
        return 200 <= self.status < 300

    def json(self):
        return json.dumps(self.body, sort_keys=True, default=str)


def ok(body=None, status=200):
    return Response(status, body if body is not None else {})


def created(body):
    return Response(201, body)


def no_content():
    return Response(204, None)
