"""Bulk inserts for `teamchat import`, second part: channel folders, bots' services,
configuration, storage and defaults, user status and presence, scheduled messages, saved
snippets, navigation views and submessages (widgets' state).

Only the import action calls these, inside its one write transaction.
"""

from __future__ import annotations

from teamchat.store.db import Tx
from teamchat.store.zulip_import import Rows


async def insert_channel_folders(tx: Tx, folders: Rows, stream_folders: Rows) -> None:
    """folders: (id, name, description, rendered_description, order, date_created,
    creator_id, is_archived); stream_folders: (folder_id, stream_id)."""
    await tx.executemany(
        'INSERT INTO channel_folder (id, name, description, rendered_description, "order",'
        " date_created, creator_id, is_archived) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        list(folders),
    )
    await tx.executemany("UPDATE stream SET folder_id = ? WHERE id = ?", list(stream_folders))


async def insert_bot_data(
    tx: Tx, services: Rows, config: Rows, storage: Rows, defaults: Rows
) -> None:
    """services: (id, bot_id, name, base_url, interface, token); config and storage:
    (bot_id, key, value); defaults: (bot_id, sending_stream_id, events_register_stream_id,
    all_public_streams)."""
    await tx.executemany(
        "INSERT INTO bot_service (id, bot_id, name, base_url, interface, token)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        list(services),
    )
    await tx.executemany(
        "INSERT INTO bot_config (bot_id, key, value) VALUES (?, ?, ?)"
        " ON CONFLICT (bot_id, key) DO UPDATE SET value = excluded.value",
        list(config),
    )
    await tx.executemany(
        "INSERT INTO bot_storage (user_id, key, value) VALUES (?, ?, ?)"
        " ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
        list(storage),
    )
    await tx.executemany(
        "INSERT INTO bot_default (bot_id, sending_stream_id, events_register_stream_id,"
        " all_public_streams) VALUES (?, ?, ?, ?)",
        list(defaults),
    )


async def insert_status_and_presence(tx: Tx, statuses: Rows, presences: Rows) -> None:
    """statuses: (user_id, timestamp, status_text, emoji_name, emoji_code, reaction_type);
    presences: (user_id, last_active_time, last_connected_time), numbered in order."""
    await tx.executemany(
        "INSERT INTO user_status (user_id, timestamp, status_text, emoji_name,"
        " emoji_code, reaction_type) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET timestamp = excluded.timestamp,"
        " status_text = excluded.status_text, emoji_name = excluded.emoji_name,"
        " emoji_code = excluded.emoji_code, reaction_type = excluded.reaction_type",
        list(statuses),
    )
    await tx.executemany(
        "INSERT INTO user_presence (user_id, last_active_time, last_connected_time,"
        " last_update_id) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET last_active_time = excluded.last_active_time,"
        " last_connected_time = excluded.last_connected_time,"
        " last_update_id = excluded.last_update_id",
        [(*row, n) for n, row in enumerate(presences, 1)],
    )
    await tx.execute(
        "UPDATE presence_sequence SET last_update_id = ? WHERE id = 1 AND last_update_id < ?",
        (len(presences), len(presences)),
    )


async def insert_scheduled_messages(tx: Tx, rows: Rows) -> None:
    """Each row: (id, sender_id, delivery_type, recipient_type, stream_id, to_user_ids,
    topic, content, rendered_content, scheduled_timestamp, read_by_sender, client, failed,
    reminder_target_message_id)."""
    await tx.executemany(
        "INSERT INTO scheduled_message (id, sender_id, delivery_type, recipient_type,"
        " stream_id, to_user_ids, topic, content, rendered_content, scheduled_timestamp,"
        " read_by_sender, client, failed, reminder_target_message_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        list(rows),
    )


async def insert_personal_views(tx: Tx, snippets: Rows, views: Rows, submessages: Rows) -> None:
    """snippets: (id, user_id, title, content, date_created); views: (id, user_id, fragment,
    is_pinned, name); submessages: (id, message_id, sender_id, msg_type, content)."""
    await tx.executemany(
        "INSERT INTO saved_snippet (id, user_id, title, content, date_created)"
        " VALUES (?, ?, ?, ?, ?)",
        list(snippets),
    )
    await tx.executemany(
        "INSERT INTO navigation_view (id, user_id, fragment, is_pinned, name)"
        " VALUES (?, ?, ?, ?, ?)",
        list(views),
    )
    await tx.executemany(
        "INSERT INTO submessage (id, message_id, sender_id, msg_type, content)"
        " VALUES (?, ?, ?, ?, ?)",
        list(submessages),
    )
