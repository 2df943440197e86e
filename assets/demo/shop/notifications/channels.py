"""Delivery channels. Each keeps an outbox instead of talking to a network."""


class Channel:
    kind = "base"

    def __init__(self):
        self.outbox = []

    def send(self, recipient, subject, body):
        if not recipient:
            return False
        message = self.format(recipient, subject, body)
        self.outbox.append(message)
        return True

    def format(self, recipient, subject, body):
        return {"channel": self.kind, "to": recipient, "subject": subject, "body": body}


class EmailChannel(Channel):
    kind = "email"

    def __init__(self, sender="orders@acme-shop.example"):
        super().__init__()
        self.sender = sender

    def format(self, recipient, subject, body):
        message = super().format(recipient, subject, body)
        message["from"] = self.sender
        return message


class SmsChannel(Channel):
    kind = "sms"
    MAX_LENGTH = 160

    def format(self, recipient, subject, body):
        text = ("%s: %s" % (subject, body))[: self.MAX_LENGTH]
        return super().format(recipient, subject, text)
