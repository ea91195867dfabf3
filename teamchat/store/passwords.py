"""Queries on password_reset (reset links, by the hash of their token) and
password_failures_cleared (when an account's failed attempts were last forgiven)."""

from __future__ import annotations

from teamchat.store.db import Conn, Tx


async def insert_reset(
    tx: Tx, key_hash: str, user_id: int, created_at: int, expires_at: int
) -> None:
    """Store a reset link; drops links that have expired (anyone's)."""
    await tx.execute("DELETE FROM password_reset WHERE expires_at <= ?", (created_at,))
    await tx.execute(
        "INSERT INTO password_reset (key_hash, user_id, created_at, expires_at) "
        "VALUES (?, ?, ?, ?)",
        (key_hash, user_id, created_at, expires_at),
    )


async def get_reset_user_id(conn: Conn, key_hash: str, now: int) -> int | None:
    """The user a live (unexpired, unused) reset link is for, or None."""
    row = await conn.fetchone(
        "SELECT user_id FROM password_reset WHERE key_hash = ? AND expires_at > ?",
        (key_hash, now),
    )
    return int(row[0]) if row else None


async def delete_resets_of(tx: Tx, user_id: int) -> None:
    """Spend every reset link of `user_id` (one was used, or the password changed)."""
    await tx.execute("DELETE FROM password_reset WHERE user_id = ?", (user_id,))


async def get_failures_generation(conn: Conn, user_id: int) -> int:
    row = await conn.fetchone(
        "SELECT generation FROM password_failures_cleared WHERE user_id = ?", (user_id,)
    )
    return int(row[0]) if row else 0


async def bump_failures_generation(tx: Tx, user_id: int) -> int:
    """Record that `user_id`'s failed attempts are forgiven; return the new generation."""
    await tx.execute(
        "INSERT INTO password_failures_cleared (user_id, generation) VALUES (?, 1) "
        "ON CONFLICT (user_id) DO UPDATE SET generation = password_failures_cleared.generation + 1",
        (user_id,),
    )
    return await get_failures_generation(tx, user_id)
