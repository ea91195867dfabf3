"""Which store serves a `--db` value: a `postgresql://` URL opens the PostgreSQL store (the
optional `teamchat[postgresql]` dependency), anything else is a SQLite file. The one place
that tells the backends apart."""

from __future__ import annotations

from pathlib import Path

from teamchat.lib.db_url import is_database_url
from teamchat.store.conn import BaseDatabase


class MissingDriverError(Exception):
    """A PostgreSQL URL was given, but the optional driver is not installed."""


def open_database(target: str | Path, readers: int = 4, *, bulk: bool = False) -> BaseDatabase:
    """The (not yet opened) database `target` names; `bulk` for a command that may load or
    rebuild much at once (SQLite then sorts in temporary files, not in memory)."""
    if is_database_url(target):
        try:
            from teamchat.store.pg.database import PgDatabase
        except ImportError as exc:
            raise MissingDriverError(
                f"PostgreSQL needs the optional driver: pip install 'teamchat[postgresql]' ({exc})"
            ) from None
        return PgDatabase(str(target), readers=readers)
    from teamchat.store.db import Database

    return Database(Path(target), readers=readers, bulk=bulk)


__all__ = ["MissingDriverError", "is_database_url", "open_database"]
