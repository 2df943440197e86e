"""Plain data objects for orders."""

from dataclasses import dataclass, field
from decimal import Decimal


class OrderStatus:
    PENDING = "pending"
    PAID = "paid"
    SHIPPED = "shipped"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"

    TRANSITIONS = {
        PENDING: {PAID, CANCELLED},
        PAID: {SHIPPED, CANCELLED, REFUNDED},
        SHIPPED: {REFUNDED},
        CANCELLED: set(),
        REFUNDED: set(),
    }

    @classmethod
    def can_move(cls, current, target):
        return target in cls.TRANSITIONS.get(current, set())


@dataclass
class LineItem:
    sku: str
    name: str
    quantity: int
    unit_price: Decimal

    @property
    def line_total(self):
        return self.unit_price * self.quantity

    def to_dict(self):
        return {
            "sku": self.sku,
            "name": self.name,
            "quantity": self.quantity,
            "unit_price": str(self.unit_price),
            "line_total": str(self.line_total),
        }


@dataclass
class Order:
    customer_id: int
    items: list = field(default_factory=list)
    status: str = OrderStatus.PENDING
    coupon: str = None
    subtotal: Decimal = Decimal("0.00")
    discount: Decimal = Decimal("0.00")
    tax: Decimal = Decimal("0.00")
    total: Decimal = Decimal("0.00")
    created_at: int = 0
    id: int = None

    def to_dict(self):
        return {
            "id": self.id,
            "customer_id": self.customer_id,
            "status": self.status,
            "coupon": self.coupon,
            "items": [item.to_dict() for item in self.items],
            "subtotal": str(self.subtotal),
            "discount": str(self.discount),
            "tax": str(self.tax),
            "total": str(self.total),
        }
