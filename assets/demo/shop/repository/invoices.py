"""Invoice and payment rows."""

from decimal import Decimal

from shop.repository.base import BaseRepository


class InvoiceRepository(BaseRepository):
    table = "invoices"

    def add(self, order_id, customer_id, amount, currency, created_at):
        return self._insert(
            {
                "order_id": order_id,
                "customer_id": customer_id,
                "amount": str(amount),
                "currency": currency,
                "status": "open",
                "created_at": created_at,
            }
        )

    def get(self, invoice_id):
        row = self._require(invoice_id)
        row["amount"] = Decimal(row["amount"])
        return row

    def for_order(self, order_id):
        rows = self._where("order_id = ?", (order_id,))
        for row in rows:
            row["amount"] = Decimal(row["amount"])
        return rows

    def for_customer(self, customer_id):
        rows = self._where("customer_id = ?", (customer_id,), order_by="id DESC")
        for row in rows:
            row["amount"] = Decimal(row["amount"])
        return rows

    def set_status(self, invoice_id, status):
        self._update(invoice_id, status=status)


class PaymentRepository(BaseRepository):
    table = "payments"

    def record(self, invoice_id, gateway, kind, amount, fee, reference):
        return self._insert(
            {
                "invoice_id": invoice_id,
                "gateway": gateway,
                "kind": kind,
                "amount": str(amount),
                "fee": str(fee),
                "reference": reference,
            }
        )

    def for_invoice(self, invoice_id):
        rows = self._where("invoice_id = ?", (invoice_id,))
        for row in rows:
            row["amount"] = Decimal(row["amount"])
            row["fee"] = Decimal(row["fee"])
        return rows

    def net_paid(self, invoice_id):
        total = Decimal("0")
        for row in self.for_invoice(invoice_id):
            total += row["amount"] if row["kind"] == "charge" else -row["amount"]
        return total
