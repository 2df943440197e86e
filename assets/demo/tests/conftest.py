import pytest

from shop.api.app import create_app, seed_demo
from shop.auth import tokens
from shop.plugins import fraud, loyalty

TEST_CARD = {"number": "4242 4242 4242 4242"}
DECLINED_CARD = {"number": "4000 0000 0000 0002"}


class FrozenClock:
    def __init__(self, start=1_700_000_000):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock():
    frozen = FrozenClock()
    previous = tokens.set_clock(frozen)
    yield frozen
    tokens.set_clock(previous)


@pytest.fixture
def app(clock):
    tokens.reset_revocations()
    loyalty.reset()
    fraud.reset()
    application = create_app()
    application.user_ids = seed_demo(application)
    yield application
    application.db.close()


def login(app, email, password):
    response = app.request("POST", "/login", body={"email": email, "password": password})
    assert response.status == 200, response.body
    return response.body["token"]


@pytest.fixture
def ada_token(app):
    return login(app, "ada@acme-shop.example", "lovelace1815")


@pytest.fixture
def grace_token(app):
    return login(app, "grace@acme-shop.example", "hopper1906")


@pytest.fixture
def admin_token(app):
    return login(app, "ops@acme-shop.example", "operations42")


@pytest.fixture
def paid_order(app, ada_token):
    return app.services.orders.place_order(
        ada_token, [("MUG-01", 2), ("STK-10", 1)], payment_method="card", payment_source=TEST_CARD
    )
