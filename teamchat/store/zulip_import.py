"""Bulk inserts for `teamchat import`: rows with the ids the import chose, many at a time.

Only the import action calls these, inside its one write transaction; they check nothing
the schema does not (foreign keys, UNIQUE, CHECK raise IntegrityError and roll it all back).
"""

from __future__ import annotations

from collections.abc import Sequence

from teamchat.store import message_search
from teamchat.store.db import WRITER_CACHE_KIB, Conn, Tx

Rows = Sequence[tuple[object, ...]]

_TABLES_THAT_MUST_BE_EMPTY = ("realm", "users", "message", "stream")


async def is_empty(conn: Conn) -> bool:
    """Whether the database holds no organization, people, channels or messages."""
    for table in _TABLES_THAT_MUST_BE_EMPTY:
        row = await conn.fetchone(f"SELECT EXISTS (SELECT 1 FROM {table})")
        if row is not None and row[0]:
            return False
    return True


async def insert_realm(
    tx: Tx, *, name: str, description: str, string_id: str, host: str, date_created: int,
    settings_json: str, deactivated: bool,
) -> int:  # fmt: skip
    """Insert the one realm row."""
    return await tx.execute(
        "INSERT INTO realm (name, description, string_id, host, date_created, settings_json,"
        " deactivated) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (name, description, string_id, host, date_created, settings_json, int(deactivated)),
    )


async def insert_realm_user_default(tx: Tx, realm_id: int, settings_json: str) -> None:
    """Store the realm's defaults for new users' settings."""
    await tx.execute(
        "INSERT INTO realm_user_default (realm_id, settings_json) VALUES (?, ?)",
        (realm_id, settings_json),
    )


async def insert_users(tx: Tx, rows: Rows) -> None:
    """Each row: (id, delivery_email, full_name, api_key, role, is_active, is_bot, bot_type,
    bot_owner_id, date_joined, timezone, avatar_source, avatar_version,
    email_address_visibility, settings_json). Passwords stay unset."""
    await tx.executemany(
        "INSERT INTO users (id, delivery_email, full_name, api_key, role, is_active, is_bot,"
        " bot_type, bot_owner_id, date_joined, timezone, avatar_source, avatar_version,"
        " email_address_visibility, settings_json)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )


async def grant_can_create_users(tx: Tx, user_ids: list[int]) -> None:
    """The users the export lets create accounts through the API."""
    await tx.executemany(
        "UPDATE users SET can_create_users = 1 WHERE id = ?", [(uid,) for uid in user_ids]
    )


async def insert_groups(tx: Tx, rows: Rows) -> None:
    """Each row: (id, name, description, is_system_group, deactivated, date_created,
    creator_id, settings_json)."""
    await tx.executemany(
        "INSERT INTO user_group (id, name, description, is_system_group, deactivated,"
        " date_created, creator_id, settings_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )


async def insert_group_members(tx: Tx, members: Rows, subgroups: Rows) -> None:
    """(group_id, user_id) and (group_id, subgroup_id) pairs."""
    await tx.executemany(
        "INSERT OR IGNORE INTO user_group_member (group_id, user_id) VALUES (?, ?)", list(members)
    )
    await tx.executemany(
        "INSERT OR IGNORE INTO user_group_subgroup (group_id, subgroup_id) VALUES (?, ?)",
        list(subgroups),
    )


async def insert_streams(tx: Tx, rows: Rows) -> None:
    """Each row: (id, name, description, rendered_description, invite_only, is_web_public,
    history_public_to_subscribers, message_retention_days, date_created, creator_id,
    is_archived, recipient_id, settings_json); also their recipient rows."""
    await tx.executemany(
        "INSERT INTO stream (id, name, description, rendered_description, invite_only,"
        " is_web_public, history_public_to_subscribers, message_retention_days, date_created,"
        " creator_id, is_archived, recipient_id, settings_json)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )
    await tx.executemany(
        "INSERT INTO recipient (id, stream_id) VALUES (?, ?)", [(r[11], r[0]) for r in rows]
    )


async def insert_dm_recipients(tx: Tx, rows: Rows) -> None:
    """Each row: (recipient_id, user_ids key); also the conversation's members."""
    await tx.executemany("INSERT INTO recipient (id, user_ids) VALUES (?, ?)", list(rows))
    await tx.executemany(
        "INSERT INTO direct_message_member (user_id, recipient_id) VALUES (?, ?)",
        [(int(uid), r[0]) for r in rows for uid in str(r[1]).split(",")],
    )


async def insert_subscriptions(tx: Tx, rows: Rows) -> None:
    """Each row: (stream_id, user_id, active, color, is_muted, pin_to_top,
    desktop_notifications, audible_notifications, push_notifications, email_notifications,
    wildcard_mentions_notify)."""
    await tx.executemany(
        "INSERT INTO subscription (stream_id, user_id, active, color, is_muted, pin_to_top,"
        " desktop_notifications, audible_notifications, push_notifications,"
        " email_notifications, wildcard_mentions_notify)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )


async def insert_default_streams(tx: Tx, stream_ids: Sequence[int]) -> None:
    await tx.executemany(
        "INSERT OR IGNORE INTO default_stream (stream_id) VALUES (?)", [(s,) for s in stream_ids]
    )


async def insert_messages(tx: Tx, rows: Rows) -> None:
    """Each row: (id, sender_id, recipient_id, stream_id, topic, content, rendered_content,
    client, date_sent, last_edit_time, last_moved_time, edit_history, has_link, has_image,
    has_attachment, is_me_message)."""
    await tx.executemany(
        "INSERT INTO message (id, sender_id, recipient_id, stream_id, topic, content,"
        " rendered_content, client, date_sent, last_edit_time, last_moved_time, edit_history,"
        " has_link, has_image, has_attachment, is_me_message)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )


async def insert_user_messages(tx: Tx, rows: Rows) -> None:
    """Each row: (user_id, message_id, flags)."""
    await tx.executemany(
        "INSERT OR IGNORE INTO user_message (user_id, message_id, flags) VALUES (?, ?, ?)",
        list(rows),
    )


async def insert_reactions(tx: Tx, rows: Rows) -> None:
    """Each row: (message_id, user_id, emoji_name, emoji_code, reaction_type)."""
    await tx.executemany(
        "INSERT OR IGNORE INTO reaction (message_id, user_id, emoji_name, emoji_code,"
        " reaction_type) VALUES (?, ?, ?, ?, ?)",
        list(rows),
    )


async def finish_streams(tx: Tx) -> None:
    """Each channel's first message and daily traffic, from the imported messages."""
    await tx.execute(
        "UPDATE stream SET first_message_id ="
        " (SELECT min(id) FROM message WHERE message.stream_id = stream.id)"
    )
    await tx.execute(
        "INSERT INTO stream_traffic (stream_id, day, messages)"
        " SELECT stream_id, date_sent / 86400, count(*) FROM message"
        " WHERE stream_id IS NOT NULL GROUP BY stream_id, date_sent / 86400"
    )


async def insert_attachment(
    tx: Tx, row: tuple[object, ...], chunks: Sequence[bytes], links: Rows
) -> None:
    """row: (id, path_id, file_name, content_type, size, owner_id, create_time); the file's
    chunks in order; links: (message_id, date_sent) of the messages that use it."""
    await tx.execute(
        "INSERT INTO attachment (id, path_id, file_name, content_type, size, owner_id,"
        " create_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
        row,
    )
    await tx.executemany(
        "INSERT INTO attachment_chunk (attachment_id, seq, data) VALUES (?, ?, ?)",
        [(row[0], seq, chunk) for seq, chunk in enumerate(chunks)],
    )
    await tx.executemany(
        "INSERT OR IGNORE INTO attachment_message (attachment_id, message_id, date_sent)"
        " VALUES (?, ?, ?)",
        [(row[0], *link) for link in links],
    )
    # The running server looks for the images among imported uploads (thumbnails).
    await tx.execute("INSERT INTO image_backfill (attachment_id) VALUES (?)", (row[0],))


async def insert_realm_emoji(
    tx: Tx, row: tuple[object, ...], data: bytes, still: bytes | None
) -> None:
    """row: (id, name, file_name, content_type, author_id, date_created, deactivated)."""
    await tx.execute(
        "INSERT INTO realm_emoji (id, name, file_name, content_type, author_id, date_created,"
        " deactivated) VALUES (?, ?, ?, ?, ?, ?, ?)",
        row,
    )
    await tx.execute(
        "INSERT INTO realm_emoji_image (emoji_id, data, still) VALUES (?, ?, ?)",
        (row[0], data, still),
    )


async def insert_avatar(tx: Tx, user_id: int, content_type: str, data: bytes) -> None:
    await tx.execute(
        "INSERT INTO user_avatar (user_id, content_type, data) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET content_type = excluded.content_type,"
        " data = excluded.data",
        (user_id, content_type, data),
    )


async def insert_profile_fields(tx: Tx, fields: Rows, values: Rows) -> None:
    """fields: (id, name, hint, field_type, field_data, sort_order, display_in_profile_summary,
    required, editable_by_user, use_for_user_matching); values: (user_id, field_id, value,
    rendered_value)."""
    await tx.executemany(
        "INSERT INTO custom_profile_field (id, name, hint, field_type, field_data, sort_order,"
        " display_in_profile_summary, required, editable_by_user, use_for_user_matching)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(fields),
    )
    await tx.executemany(
        "INSERT INTO custom_profile_field_value (user_id, field_id, value, rendered_value)"
        " VALUES (?, ?, ?, ?)",
        list(values),
    )


async def insert_linkifiers(tx: Tx, linkifiers: Rows, playgrounds: Rows) -> None:
    """linkifiers: (id, pattern, url_template, order); playgrounds: (id, name,
    pygments_language, url_template)."""
    await tx.executemany(
        'INSERT INTO linkifier (id, pattern, url_template, "order") VALUES (?, ?, ?, ?)',
        list(linkifiers),
    )
    await tx.executemany(
        "INSERT INTO playground (id, name, pygments_language, url_template) VALUES (?, ?, ?, ?)",
        list(playgrounds),
    )


async def insert_personal(tx: Tx, table: str, rows: Rows) -> None:
    """Per-user rows of one of alert_word (user_id, word), muted_user (user_id,
    muted_user_id, date_muted) or user_topic (user_id, stream_id, topic_name,
    visibility_policy, last_updated)."""
    sql = {
        "alert_word": "INSERT OR IGNORE INTO alert_word (user_id, word) VALUES (?, ?)",
        "muted_user": "INSERT OR IGNORE INTO muted_user (user_id, muted_user_id, date_muted)"
        " VALUES (?, ?, ?)",
        "user_topic": "INSERT OR IGNORE INTO user_topic (user_id, stream_id, topic_name,"
        " visibility_policy, last_updated) VALUES (?, ?, ?, ?, ?)",
    }[table]
    await tx.executemany(sql, list(rows))


async def defer_foreign_keys(tx: Tx) -> None:
    """Check foreign keys at COMMIT (rows come in id order, not dependency order)."""
    await tx.execute("PRAGMA defer_foreign_keys = ON")


async def continue_ids(tx: Tx) -> None:
    """New rows get ids after the imported ones (which were inserted with their own)."""
    from teamchat.store.move_tables import table_specs

    await tx.advance_id_sequences(tuple(spec.name for spec in table_specs() if spec.has_id))


async def max_user_id(conn: Conn) -> int:
    row = await conn.fetchone("SELECT coalesce(max(id), 0) FROM users")
    return int(row[0]) if row else 0


async def max_group_id(conn: Conn) -> int:
    row = await conn.fetchone("SELECT coalesce(max(id), 0) FROM user_group")
    return int(row[0]) if row else 0


# Tables whose secondary indexes are dropped during a bulk import and built again after:
# one sort per index is much faster than updating it for every row.
_BULK_TABLES = ("message", "user_message", "reaction")


# The trigger that indexes each new message for search: one bulk insert is ~7x faster.
_SEARCH_TRIGGER = "message_fts_insert"


async def drop_bulk_indexes(tx: Tx) -> list[str]:
    """Drop the secondary indexes of the big tables and the search trigger; return the
    statements that create them again. Only for a database with no messages yet.
    (PostgreSQL: nothing; its search column is computed with each row.)"""
    if tx.backend != "sqlite":
        return []
    rows = await tx.fetchall(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND"
        " ((type = 'index' AND tbl_name IN (?, ?, ?)) OR (type = 'trigger' AND name = ?))",
        (*_BULK_TABLES, _SEARCH_TRIGGER),
    )
    for row in rows:
        await tx.execute(f'DROP {str(row["type"]).upper()} "{row["name"]}"')
    return [str(row["sql"]) for row in rows]


async def create_indexes(tx: Tx, statements: Sequence[str]) -> None:
    """Index every message for search, then create again what `drop_bulk_indexes` dropped."""
    if tx.backend != "sqlite":
        return
    await tx.execute(
        "INSERT INTO message_fts (rowid, topic, content) SELECT id, topic, content FROM message"
    )
    await message_search.optimize_index(tx)
    for sql in statements:
        await tx.execute(sql)


async def set_cache_size(tx: Tx, kib: int | None) -> None:
    """Use a page cache of `kib` KiB on the writer (None: the writer's usual size)."""
    if tx.backend != "sqlite":
        return
    await tx.execute(f"PRAGMA cache_size = -{int(kib or WRITER_CACHE_KIB)}")
