"""Scripted walkthrough: ``python -m shop``."""

import logging

from shop.api.app import create_app, seed_demo

TEST_CARD = {"number": "4242 4242 4242 4242"}


def main():
    logging.basicConfig(level=logging.INFO, format="%(name)s %(message)s")
    app = create_app()
    seed_demo(app)

    ada = app.request("POST", "/login", body={"email": "ada@acme-shop.example", "password": "lovelace1815"})
    ops = app.request("POST", "/login", body={"email": "ops@acme-shop.example", "password": "operations42"})
    ada_token, ops_token = ada.body["token"], ops.body["token"]

    app.request("POST", "/cart", ada_token, {"sku": "MUG-01", "quantity": 2})
    app.request("POST", "/cart", ada_token, {"sku": "STK-10"})
    order = app.request(
        "POST", "/cart/checkout", ada_token,
        {"coupon": "WELCOME10", "payment_method": "card", "payment_source": TEST_CARD},
    )
    print("placed:", order.json())
    print("ship:", app.request("POST", "/admin/orders/%d/ship" % order.body["id"], ops_token).status)
    print("forbidden:", app.request("GET", "/admin/revenue", ada_token).json())
    print("revenue:", app.request("GET", "/admin/revenue", ops_token).json())
    print(app.request("GET", "/invoices/1", ada_token).body["text"])


if __name__ == "__main__":
    main()
