"""Composition root: build every service and wire them together."""

from decimal import Decimal

from shop.api.http import Request
from shop.api.routes import handle
from shop.api.services import Services, configure
from shop.auth.users import UserService
from shop.billing.invoices import InvoiceService
from shop.billing.registry import build_gateways
from shop.config import get_settings
from shop.notifications.channels import EmailChannel, SmsChannel
from shop.notifications.notifier import Notifier
from shop.orders.cart import CartStore
from shop.orders.service import OrderService
from shop.plugins.loader import load_plugins
from shop.repository.audit import AuditRepository
from shop.repository.database import Database
from shop.repository.invoices import InvoiceRepository, PaymentRepository
from shop.repository.users import UserRepository


class App:
    def __init__(self, services, db, plugins):
        self.services = services
        self.db = db
        self.plugins = plugins

    def request(self, method, path, token=None, body=None, query=None):
        return handle(Request.build(method, path, token=token, body=body, query=query))


def create_app(settings=None, plugins=None):
    settings = settings or get_settings()
    db = Database(settings.database_path)
    users_repo = UserRepository(db)
    audit_repo = AuditRepository(db)
    payments_repo = PaymentRepository(db)
    invoice_repo = InvoiceRepository(db)

    notifier = Notifier({"email": EmailChannel(), "sms": SmsChannel()}, users_repo)
    gateways = build_gateways(payments_repo)
    invoices = InvoiceService(invoice_repo, payments_repo, gateways, notifier=notifier)
    hooks, loaded = load_plugins(settings.plugins if plugins is None else plugins)
    orders = OrderService(db, invoices, gateways, notifier=notifier, audit_repo=audit_repo, hooks=hooks)

    services = configure(
        Services(
            users=UserService(users_repo, audit_repo, notifier),
            orders=orders,
            invoices=invoices,
            refunds=orders.refunds,
            carts=CartStore(),
            notifier=notifier,
            gateways=gateways,
            audit=audit_repo,
        )
    )
    return App(services, db, loaded)


DEMO_USERS = (
    ("ada@acme-shop.example", "lovelace1815", "Ada", ("customer",)),
    ("grace@acme-shop.example", "hopper1906", "Grace", ("customer",)),
    ("ops@acme-shop.example", "operations42", "Ops", ("admin", "customer")),
)


def seed_demo(app):
    """Create demo users and give Ada some store credit."""
    users = app.services.users
    ids = [users.register(email, pw, name, roles) for email, pw, name, roles in DEMO_USERS]
    app.services.gateways["wallet"].balances[ids[0]] = Decimal("50.00")
    return ids
