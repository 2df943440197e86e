"""Billing: money arithmetic, invoices, payment gateways and refunds."""
