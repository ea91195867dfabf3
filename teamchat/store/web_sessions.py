"""Queries on web_session: browser log-in sessions, keyed by the hash of their cookie token."""

from __future__ import annotations

from teamchat.records import WebSessionRow
from teamchat.store.db import Conn, Tx

_COLUMNS = "key_hash, user_id, csrf_token, auth_fingerprint, created_at, expires_at"


async def get_session(conn: Conn, key_hash: str) -> WebSessionRow | None:
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM web_session WHERE key_hash = ?", (key_hash,))
    return WebSessionRow(**dict(row)) if row else None


async def insert(tx: Tx, session: WebSessionRow) -> None:
    await tx.execute(
        f"INSERT INTO web_session ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
        (
            session.key_hash,
            session.user_id,
            session.csrf_token,
            session.auth_fingerprint,
            session.created_at,
            session.expires_at,
        ),
    )


async def delete_session(tx: Tx, key_hash: str) -> None:
    await tx.execute("DELETE FROM web_session WHERE key_hash = ?", (key_hash,))


async def delete_expired(tx: Tx, now: float) -> None:
    await tx.execute("DELETE FROM web_session WHERE expires_at <= ?", (now,))


async def update_fingerprint(tx: Tx, key_hash: str, user_id: int, fingerprint: str) -> None:
    await tx.execute(
        "UPDATE web_session SET auth_fingerprint = ? WHERE key_hash = ? AND user_id = ?",
        (fingerprint, key_hash, user_id),
    )
