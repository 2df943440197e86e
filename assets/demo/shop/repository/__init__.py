"""Persistence: a thin repository layer over sqlite3."""
