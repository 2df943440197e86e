"""Which gateway handles which payment method."""

from shop.billing.gateway import CardGateway, WalletGateway
from shop.errors import ValidationError

GATEWAY_CLASSES = {
    "card": CardGateway,
    "wallet": WalletGateway,
}


def build_gateways(payments_repo, enabled=("card", "wallet")):
    return {name: GATEWAY_CLASSES[name](payments_repo) for name in enabled}


def choose_gateway(gateways, method):
    try:
        return gateways[method]
    except KeyError:
        raise ValidationError("unsupported payment method", method=method) from None
