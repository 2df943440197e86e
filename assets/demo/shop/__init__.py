"""Acme Shop backend.

A deliberately ordinary monolith: auth, billing, orders, a repository layer
over sqlite3, notifications, plugins and a small HTTP-like API.
"""

__version__ = "2.14.0"
