"""SQLite store: the database, migrations and one query module per area."""

from teamchat.store import realm, users

__all__ = ["realm", "users"]
