"""Telling a full disk apart from other failures, for the store and the error handler."""

from __future__ import annotations

import errno
import sqlite3

# What SQLite says (SQLITE_FULL) and what the OS says (no space, quota exceeded).
_OS_CODES = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, sqlite3.OperationalError):
        code = getattr(exc, "sqlite_errorcode", None)
        return code == sqlite3.SQLITE_FULL or "database or disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno in _OS_CODES
