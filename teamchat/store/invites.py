"""Queries on invitations: email invitations (single use) and reusable invitation links."""

from __future__ import annotations

import msgspec

from teamchat.records import InvitationRow
from teamchat.store.db import Conn, Row, Tx

ACTIVE, USED, REVOKED = 0, 1, 2

_COLUMNS = (
    "id, email, key, referred_by, invited_as, date_created, expiry_date, status,"
    " stream_ids_json, group_ids_json, include_realm_default_subscriptions,"
    " notify_referrer_on_join, welcome_message_custom_text"
)


def _row(row: Row) -> InvitationRow:
    data = dict(row)
    data["stream_ids"] = msgspec.json.decode(data.pop("stream_ids_json"))
    data["group_ids"] = msgspec.json.decode(data.pop("group_ids_json"))
    data["include_realm_default_subscriptions"] = bool(data["include_realm_default_subscriptions"])
    data["notify_referrer_on_join"] = bool(data["notify_referrer_on_join"])
    return InvitationRow(**data)


async def get_invitation(conn: Conn, invite_id: int, *, multiuse: bool) -> InvitationRow | None:
    """An email invitation (or, with `multiuse`, a reusable link) by id."""
    kind = "email IS NULL" if multiuse else "email IS NOT NULL"
    row = await conn.fetchone(
        f"SELECT {_COLUMNS} FROM invitation WHERE id = ? AND {kind}", (invite_id,)
    )
    return _row(row) if row else None


async def get_invitation_by_key(conn: Conn, key: str) -> InvitationRow | None:
    """The invitation a sign-up key belongs to, or None."""
    row = await conn.fetchone(f"SELECT {_COLUMNS} FROM invitation WHERE key = ?", (key,))
    return _row(row) if row else None


async def list_active_invitations(
    conn: Conn, now: int, *, referred_by: int | None = None
) -> list[InvitationRow]:
    """Unused, unrevoked, unexpired invitations (of one referrer, or everyone's), by id."""
    where = "status = ? AND (expiry_date IS NULL OR expiry_date > ?)"
    params: list[object] = [ACTIVE, now]
    if referred_by is not None:
        where += " AND referred_by = ?"
        params.append(referred_by)
    rows = await conn.fetchall(
        f"SELECT {_COLUMNS} FROM invitation WHERE {where} ORDER BY id", tuple(params)
    )
    return [_row(row) for row in rows]


async def insert(
    tx: Tx,
    *,
    email: str | None,
    key: str,
    referred_by: int,
    invited_as: int,
    date_created: int,
    expiry_date: int | None,
    stream_ids: list[int],
    group_ids: list[int],
    include_realm_default_subscriptions: bool,
    notify_referrer_on_join: bool,
    welcome_message_custom_text: str | None,
) -> int:
    """Record an invitation; return its id."""
    return await tx.execute(
        "INSERT INTO invitation (email, key, referred_by, invited_as, date_created, expiry_date,"
        " stream_ids_json, group_ids_json, include_realm_default_subscriptions,"
        " notify_referrer_on_join, welcome_message_custom_text)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            email,
            key,
            referred_by,
            invited_as,
            date_created,
            expiry_date,
            msgspec.json.encode(stream_ids).decode(),
            msgspec.json.encode(group_ids).decode(),
            int(include_realm_default_subscriptions),
            int(notify_referrer_on_join),
            welcome_message_custom_text,
        ),
    )


async def update_grants(tx: Tx, invitation: InvitationRow) -> None:
    """Store what a reusable link grants: role, channels, groups, default channels."""
    await tx.execute(
        "UPDATE invitation SET invited_as = ?, stream_ids_json = ?, group_ids_json = ?,"
        " include_realm_default_subscriptions = ? WHERE id = ?",
        (
            invitation.invited_as,
            msgspec.json.encode(invitation.stream_ids).decode(),
            msgspec.json.encode(invitation.group_ids).decode(),
            int(invitation.include_realm_default_subscriptions),
            invitation.id,
        ),
    )


async def set_status(tx: Tx, invite_id: int, status: int) -> None:
    """Mark an invitation active, used or revoked."""
    await tx.execute("UPDATE invitation SET status = ? WHERE id = ?", (status, invite_id))


async def delete(tx: Tx, invite_id: int) -> None:
    """Delete an invitation."""
    await tx.execute("DELETE FROM invitation WHERE id = ?", (invite_id,))


async def revoke_email_invitations_for(tx: Tx, email: str) -> None:
    """Once someone signs up, their other pending email invitations are spent."""
    await tx.execute(
        "UPDATE invitation SET status = ? WHERE email = ? COLLATE NOCASE AND status = ?",
        (USED, email, ACTIVE),
    )
