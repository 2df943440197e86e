import pytest

from shop.auth.tokens import issue_token
from shop.notifications.channels import EmailChannel, SmsChannel
from shop.notifications.notifier import Notifier
from shop.notifications.templates import render
from shop.plugins.loader import load_plugins, new_hooks


def make_notifier():
    return Notifier({"email": EmailChannel(), "sms": SmsChannel()})


def test_render_templates():
    subject, body = render("order_placed", order_id=4, total="9.99")
    assert subject == "Order #4 received"
    assert "$9.99" in body


def test_notify_dispatches_by_event_name():
    notifier = make_notifier()
    sent = notifier.notify("order_shipped", {"order_id": 1, "customer_id": 1, "carrier": "x", "email": "a@b.c"})
    assert sent == 1  # sms has no address without a user repository
    assert notifier.channels["email"].outbox[0]["from"] == "orders@acme-shop.example"
    assert notifier.notify("unknown_event", {}) is False
    assert notifier.dropped == ["unknown_event"]


def test_preferences(clock):
    notifier = make_notifier()
    token = issue_token("user:1")
    assert notifier.preferences_for(token) == ("email",)
    notifier.set_preferences(token, ["sms"])
    assert notifier.preferences_for(token) == ("sms",)
    with pytest.raises(ValueError):
        notifier.set_preferences(token, ["pigeon"])


def test_sms_is_truncated():
    sms = SmsChannel()
    sms.send("sms:1", "s", "x" * 500)
    assert len(sms.outbox[0]["body"]) == SmsChannel.MAX_LENGTH
    assert not sms.send("", "s", "b")


def test_plugin_loader_registers_hooks():
    hooks, loaded = load_plugins(["shop.plugins.loyalty", "shop.plugins.fraud"], new_hooks())
    assert [m.__name__ for m in loaded] == ["shop.plugins.loyalty", "shop.plugins.fraud"]
    assert [f.__name__ for f in hooks["order_placed"]] == ["award_points", "screen_order"]
    with pytest.raises(ImportError):
        load_plugins(["shop.config"])
