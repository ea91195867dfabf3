"""SQLite store: the database, migrations and one query module per area."""

from teamchat.store import groups, realm, realm_emoji, realm_exports, uploads, users

__all__ = ["groups", "realm", "realm_emoji", "realm_exports", "uploads", "users"]
