"""SQLite store: the database, migrations and one query module per area."""

from teamchat.store import groups, realm, uploads, users

__all__ = ["groups", "realm", "uploads", "users"]
