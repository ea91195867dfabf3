"""Where upload bytes live: in the database (the default) or in the blob store the `uploads`
setting names (a shared directory or an S3 bucket), under the keys below.

With a blob store, rows keep their metadata in the database and the bytes go to the store
(byte columns hold b"" and no chunk rows are written). Rows written while uploads were kept
in the database keep their bytes there and are still read from there: readers look in the
database first. Bytes are stored before the transaction that makes them reachable commits,
and deleted after the transaction that makes them unreachable commits.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from teamchat.runtime import Runtime
from teamchat.store.blobs import AsyncBlobs
from teamchat.store.db import Tx

log = logging.getLogger("teamchat.uploads")


def attachment_key(path_id: str) -> str:
    """An uploaded file: its path_id ("{realm_id}/{xx}/{random}/{name}"), as in Zulip's S3."""
    return path_id


def thumbnail_key(path_id: str, format_name: str) -> str:
    return f"thumbnail/{path_id}/{format_name}"


def avatar_key(user_id: int) -> str:
    return f"avatars/{user_id}"


def emoji_key(realm_id: int, file_name: str, *, still: bool) -> str:
    return f"{realm_id}/emoji/images/{'still/' if still else ''}{file_name}"


def export_key(realm_id: int, secret: str, file_name: str) -> str:
    return f"exports/{realm_id}/{secret}/{file_name}"


def delete_after_commit(rt: Runtime, tx: Tx, keys: Sequence[str]) -> None:
    """Delete `keys` from the blob store once `tx` commits (nothing if there is no store)."""
    store = rt.blobs
    if store is None or not keys:
        return
    tx.after_commit(lambda: rt.spawn(delete_now(store, keys)))


async def delete_now(store: AsyncBlobs, keys: Sequence[str]) -> None:
    """Delete `keys`; a failure is logged (the bytes are unreachable already), not raised."""
    try:
        await store.delete(keys)
    except Exception:
        log.exception("could not delete %d objects from %s", len(keys), store.description)
