"""Runtime configuration for the shop backend.

Values come from environment variables (``SHOP_*``) with development
defaults. The signing key below is a development placeholder only.
"""

import os
from dataclasses import dataclass, replace
from decimal import Decimal

DEV_SIGNING_KEY = "dev-only-not-a-secret"


@dataclass(frozen=True)
class Settings:
    signing_key: bytes = DEV_SIGNING_KEY.encode()
    token_ttl_seconds: int = 3600
    currency: str = "USD"
    tax_rate: Decimal = Decimal("0.08")
    database_path: str = ":memory:"
    plugins: tuple = ("shop.plugins.loyalty", "shop.plugins.fraud")
    refund_window_days: int = 30
    big_order_threshold: Decimal = Decimal("1000.00")


_settings = None


def load_settings(env=None):
    """Build Settings from a mapping of environment variables."""
    env = os.environ if env is None else env
    base = Settings()
    overrides = {}
    if env.get("SHOP_SIGNING_KEY"):
        overrides["signing_key"] = env["SHOP_SIGNING_KEY"].encode()
    if env.get("SHOP_TOKEN_TTL"):
        overrides["token_ttl_seconds"] = int(env["SHOP_TOKEN_TTL"])
    if env.get("SHOP_CURRENCY"):
        overrides["currency"] = env["SHOP_CURRENCY"]
    if env.get("SHOP_TAX_RATE"):
        overrides["tax_rate"] = Decimal(env["SHOP_TAX_RATE"])
    if env.get("SHOP_DB"):
        overrides["database_path"] = env["SHOP_DB"]
    if "SHOP_PLUGINS" in env:
        names = [n.strip() for n in env["SHOP_PLUGINS"].split(",") if n.strip()]
        overrides["plugins"] = tuple(names)
    return replace(base, **overrides)


def get_settings():
    """Process-wide settings, loaded lazily on first use."""
    global _settings
    if _settings is None:
        _settings = load_settings()
    return _settings


def override_settings(**changes):
    """Replace selected settings (used by tests and the demo script)."""
    global _settings
    _settings = replace(get_settings(), **changes)
    return _settings
