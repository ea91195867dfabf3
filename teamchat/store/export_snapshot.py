"""Reads for `teamchat export`: every table the export needs, from one read transaction.

A `Snapshot` is a read-only connection inside one transaction, so every read sees the same
state while a server keeps writing: SQLite's read transaction (one WAL snapshot), or
PostgreSQL's REPEATABLE READ READ ONLY one (`store/snapshot.py`, driven from an event loop
of its own in a thread). Synchronous: the export runs in a thread or in the CLI process.
Rows come back as plain dicts keyed by column name; the writer turns them into Zulip's
tables. Nothing here writes.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Coroutine, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from teamchat.lib.db_url import is_database_url
from teamchat.store import idle_users
from teamchat.store.db import BUSY_TIMEOUT_MS
from teamchat.store.snapshot import Snapshot as StoreSnapshot
from teamchat.store.snapshot import open_snapshot

Row = dict[str, object]

# table -> (columns, order) the export reads; the only SQL identifiers used below.
_TABLES: dict[str, tuple[str, str]] = {
    "realm": (
        "id, string_id, name, description, host, date_created, settings_json, deactivated",
        "id",
    ),
    "users": (
        "id, delivery_email, full_name, role, is_active, is_bot, bot_type, bot_owner_id, "
        "date_joined, timezone, avatar_source, avatar_version, email_address_visibility, "
        "settings_json, can_create_users",
        "id",
    ),
    "stream": (
        "id, name, description, rendered_description, invite_only, is_web_public, "
        "history_public_to_subscribers, message_retention_days, topics_policy, date_created, "
        "creator_id, is_archived, first_message_id, folder_id, recipient_id, settings_json",
        "id",
    ),
    "recipient": ("id, stream_id, user_ids", "id"),
    "subscription": (
        "stream_id, user_id, active, color, is_muted, pin_to_top, desktop_notifications, "
        "audible_notifications, push_notifications, email_notifications, "
        "wildcard_mentions_notify",
        "stream_id, user_id",
    ),
    "direct_message_member": ("user_id, recipient_id", "recipient_id, user_id"),
    "default_stream": ("stream_id", "stream_id"),
    "user_group": (
        "id, name, description, is_system_group, deactivated, date_created, creator_id, "
        "settings_json",
        "id",
    ),
    "user_group_member": ("group_id, user_id", "group_id, user_id"),
    "user_group_subgroup": ("group_id, subgroup_id", "group_id, subgroup_id"),
    "realm_emoji": (
        "id, name, file_name, content_type, author_id, date_created, deactivated",
        "id",
    ),
    "channel_folder": (
        'id, name, description, rendered_description, "order", date_created, creator_id, '
        "is_archived",
        "id",
    ),
    "linkifier": ('id, pattern, url_template, "order"', "id"),
    "playground": ("id, name, pygments_language, url_template", "id"),
    "custom_profile_field": (
        "id, name, hint, field_type, field_data, sort_order, display_in_profile_summary, "
        "required, editable_by_user, use_for_user_matching",
        "id",
    ),
    "custom_profile_field_value": (
        "user_id, field_id, value, rendered_value",
        "user_id, field_id",
    ),
    "user_presence": ("user_id, last_active_time, last_connected_time", "user_id"),
    "user_status": (
        "user_id, timestamp, status_text, emoji_name, emoji_code, reaction_type",
        "user_id",
    ),
    "alert_word": ("id, user_id, word", "id"),
    "muted_user": ("user_id, muted_user_id, date_muted", "user_id, muted_user_id"),
    "user_topic": (
        "user_id, stream_id, topic_name, visibility_policy, last_updated",
        "user_id, stream_id, topic_name",
    ),
    "bot_service": ("id, bot_id, name, base_url, interface, token", "id"),
    "bot_config": ("bot_id, key, value", "bot_id, key"),
    "bot_storage": ("user_id, key, value", "user_id, key"),
    "bot_default": (
        "bot_id, sending_stream_id, events_register_stream_id, all_public_streams",
        "bot_id",
    ),
    "realm_user_default": ("realm_id, settings_json", "realm_id"),
    "submessage": ("id, message_id, sender_id, msg_type, content", "id"),
    "saved_snippet": ("id, user_id, title, content, date_created", "id"),
    "navigation_view": ("id, user_id, fragment, is_pinned, name", "id"),
    "reaction": ("id, message_id, user_id, emoji_name, emoji_code, reaction_type", "id"),
    "attachment": ("id, path_id, file_name, content_type, size, owner_id, create_time", "id"),
    "attachment_message": ("attachment_id, message_id", "attachment_id, message_id"),
    "scheduled_message": (
        "id, sender_id, delivery_type, recipient_type, stream_id, to_user_ids, topic, content, "
        "rendered_content, scheduled_timestamp, read_by_sender, failed, "
        "reminder_target_message_id",
        "id",
    ),
}
_MESSAGE_COLUMNS = (
    "id, sender_id, recipient_id, stream_id, topic, content, rendered_content, client, "
    "date_sent, last_edit_time, last_moved_time, edit_history, has_link, has_image, "
    "has_attachment, is_me_message"
)


T = TypeVar("T")
Params = tuple[object, ...]


class _SqliteReads:
    """A read-only SQLite connection inside one BEGIN."""

    def __init__(self, db_path: Path) -> None:
        self._conn = sqlite3.connect(
            f"{db_path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
        )
        self._conn.row_factory = sqlite3.Row
        self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._conn.execute("BEGIN")

    def all(self, sql: str, params: Params = ()) -> list[Row]:
        return [dict(row) for row in self._conn.execute(sql, params)]

    def close(self) -> None:
        self._conn.execute("COMMIT")
        self._conn.close()


class _StoreReads:
    """A snapshot of the store's (PostgreSQL's), its awaits run on an event loop of its own."""

    def __init__(self, url: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._opened: AbstractAsyncContextManager[StoreSnapshot] = open_snapshot(url)
        try:
            self._snapshot = self._wait(self._opened.__aenter__())
        except BaseException:
            self._stop()
            raise

    def _wait(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def all(self, sql: str, params: Params = ()) -> list[Row]:
        rows = self._wait(self._snapshot.conn.fetchall(sql, params))
        return [dict(zip(row.keys(), row, strict=True)) for row in rows]

    def close(self) -> None:
        try:
            self._wait(self._opened.__aexit__(None, None, None))
        finally:
            self._stop()

    def _stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


class Snapshot:
    """One consistent read of the database (a SQLite file or a PostgreSQL URL), open until
    `close` (or the `with` ends)."""

    def __init__(self, source: Path | str) -> None:
        self._reads = (
            _StoreReads(str(source)) if is_database_url(source) else _SqliteReads(Path(source))
        )
        # The snapshot is taken at the first read, not at BEGIN: read now.
        self._reads.all("SELECT COUNT(*) FROM realm")
        # Whether some rows are implied (idle people): if not, reading them costs nothing.
        self._anyone_idle = bool(self._reads.all("SELECT 1 FROM idle_user LIMIT 1"))

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """End the read transaction and close the connection."""
        self._reads.close()

    def rows(self, table: str) -> list[Row]:
        """Every row of one of the exported tables, in a stable order."""
        columns, order = _TABLES[table]
        return self._reads.all(f"SELECT {columns} FROM {table} ORDER BY {order}")

    def count_messages(self) -> int:
        """How many messages the snapshot holds."""
        return int(str(self._reads.all("SELECT COUNT(*) AS n FROM message")[0]["n"]))

    def messages(self, batch: int) -> Iterator[list[Row]]:
        """All messages in id order, `batch` at a time."""
        after = 0
        sql = f"SELECT {_MESSAGE_COLUMNS} FROM message WHERE id > ? ORDER BY id LIMIT ?"
        while chunk := self._reads.all(sql, (after, batch)):
            after = int(str(chunk[-1]["id"]))
            yield chunk

    def user_messages(self, first_id: int, last_id: int) -> list[Row]:
        """The user_message rows of messages `first_id`..`last_id` (with those implied for
        idle users: see store.idle_users)."""
        sql = "SELECT user_id, message_id, flags FROM user_message WHERE message_id BETWEEN ? AND ?"
        params: tuple[int, ...] = (first_id, last_id)
        if self._anyone_idle:
            implied = idle_users.implied_rows_sql("m.id BETWEEN ? AND ?")
            sql += (
                " UNION ALL SELECT implied.user_id, implied.id AS message_id, 0 AS flags"
                f" FROM ({implied}) implied"
            )
            params += (first_id, last_id)
        sql += " ORDER BY message_id, user_id"
        return self._reads.all(sql, params)

    def attachment_bytes(self, attachment_id: int) -> Iterator[bytes]:
        """An upload's bytes, chunk by chunk."""
        sql = (
            "SELECT seq, data FROM attachment_chunk WHERE attachment_id = ? AND seq > ?"
            " ORDER BY seq LIMIT 1"
        )
        seq = -1
        while found := self._reads.all(sql, (attachment_id, seq)):
            seq = int(str(found[0]["seq"]))
            yield bytes(found[0]["data"])  # type: ignore[call-overload]

    def avatars(self) -> list[Row]:
        """Uploaded avatars: user_id, content_type, data."""
        return self._reads.all(
            "SELECT user_id, content_type, data FROM user_avatar ORDER BY user_id"
        )

    def emoji_image(self, emoji_id: int) -> bytes | None:
        """A custom emoji's image bytes."""
        found = self._reads.all(
            "SELECT data FROM realm_emoji_image WHERE emoji_id = ?", (emoji_id,)
        )
        return None if not found else bytes(found[0]["data"])  # type: ignore[call-overload]
