"""Order rows and their line items, mapped to ``shop.orders.models``."""

from decimal import Decimal

from shop.orders.models import LineItem, Order
from shop.repository.base import BaseRepository


class OrderRepository(BaseRepository):
    table = "orders"

    def add(self, order):
        with self.db.transaction():
            order_id = self._insert(
                {
                    "customer_id": order.customer_id,
                    "status": order.status,
                    "coupon": order.coupon,
                    "subtotal": str(order.subtotal),
                    "discount": str(order.discount),
                    "tax": str(order.tax),
                    "total": str(order.total),
                    "created_at": order.created_at,
                }
            )
            for item in order.items:
                self.db.execute(
                    "INSERT INTO order_items (order_id, sku, name, quantity, unit_price)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (order_id, item.sku, item.name, item.quantity, str(item.unit_price)),
                )
        order.id = order_id
        return order

    def get(self, order_id):
        return self._to_model(self._require(order_id))

    def find(self, order_id):
        row = self._get(order_id)
        return self._to_model(row) if row is not None else None

    def list_for_customer(self, customer_id):
        rows = self._where("customer_id = ?", (customer_id,), order_by="id DESC")
        return [self._to_model(row) for row in rows]

    def list_by_status(self, status):
        return [self._to_model(row) for row in self._where("status = ?", (status,))]

    def update_status(self, order_id, status):
        self._require(order_id)
        self._update(order_id, status=status)

    def _items(self, order_id):
        rows = self.db.query(
            "SELECT * FROM order_items WHERE order_id = ? ORDER BY rowid", (order_id,)
        )
        return [
            LineItem(r["sku"], r["name"], r["quantity"], Decimal(r["unit_price"])) for r in rows
        ]

    def _to_model(self, row):
        return Order(
            id=row["id"],
            customer_id=row["customer_id"],
            items=self._items(row["id"]),
            status=row["status"],
            coupon=row["coupon"],
            subtotal=Decimal(row["subtotal"]),
            discount=Decimal(row["discount"]),
            tax=Decimal(row["tax"]),
            total=Decimal(row["total"]),
            created_at=row["created_at"],
        )
