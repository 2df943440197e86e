"""Event -> message fan-out.

``Notifier.notify`` dispatches on the event name with ``getattr``; a static
call graph cannot tell which ``on_*`` method runs for a given call site.
"""

from shop.auth.tokens import validate_token
from shop.notifications.templates import render


class Notifier:
    def __init__(self, channels, users_repo=None):
        self.channels = channels
        self.users = users_repo
        self.preferences = {}
        self.dropped = []

    def notify(self, event, payload):
        handler = getattr(self, "on_" + event, None)
        if handler is None:
            self.dropped.append(event)
            return False
        return handler(payload)

    # -- preferences --------------------------------------------------------

    def set_preferences(self, token, channels):
        claims = validate_token(token)
        unknown = set(channels) - set(self.channels)
        if unknown:
            raise ValueError("unknown channels: %s" % ", ".join(sorted(unknown)))
        self.preferences[claims.user_id] = tuple(channels)
        return self.preferences[claims.user_id]

    def preferences_for(self, token):
        return self.preferences.get(validate_token(token).user_id, ("email",))

    # -- event handlers (reached via getattr) ------------------------------

    def on_order_placed(self, payload):
        return self._deliver("order_placed", payload)

    def on_order_cancelled(self, payload):
        return self._deliver("order_cancelled", payload)

    def on_order_shipped(self, payload):
        return self._deliver("order_shipped", payload, channels=("email", "sms"))

    def on_invoice_paid(self, payload):
        return self._deliver("invoice_paid", payload)

    def on_refund_issued(self, payload):
        return self._deliver("refund_issued", payload)

    def on_password_changed(self, payload):
        # Security mail always goes out by email, whatever the preferences.
        return self._deliver("password_changed", payload, channels=("email",), force=True)

    # -- internals ---------------------------------------------------------

    def _deliver(self, template, payload, channels=None, force=False):
        user_id = payload.get("customer_id", payload.get("user_id"))
        wanted = channels or ("email",)
        if not force and user_id in self.preferences:
            wanted = [c for c in wanted if c in self.preferences[user_id]] or list(self.preferences[user_id])
        subject, body = render(template, **payload)
        sent = 0
        for name in wanted:
            channel = self.channels.get(name)
            if channel is not None and channel.send(self._address(user_id, name, payload), subject, body):
                sent += 1
        return sent

    def _address(self, user_id, channel, payload):
        if channel == "email" and payload.get("email"):
            return payload["email"]
        if self.users is not None and user_id is not None:
            user = self.users.get(user_id)
            if user is not None:
                return user["email"] if channel == "email" else "sms:%d" % user_id
        return None
