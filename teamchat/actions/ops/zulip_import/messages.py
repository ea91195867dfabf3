"""The messages of an export for `teamchat import`: messages-NNNNNN.json (messages, their
flags, and reactions when the source delivers them with their messages, as the Slack reader
does) and realm.json's zerver_reaction. Written in the import's transaction.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field

from teamchat.actions.ops.zulip_import import plan
from teamchat.actions.ops.zulip_import.plan import as_int, as_opt_int, as_str
from teamchat.errors import ZulipError
from teamchat.lib import flags
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.export_open import ExportSource
from teamchat.lib.zulip_export_reader import Record, TableData
from teamchat.render.sanitize import sanitize_html
from teamchat.store import zulip_import as bulk
from teamchat.store.db import Tx

# Flag masks repeat a lot: convert each distinct one once.
_teamchat_flags = functools.cache(fmt.teamchat_flags)


@dataclass
class ImportSummary:
    """What was imported: the realm's name, its people, and a count per kind."""

    realm_name: str
    source: str = "zulip"
    users: list[tuple[str, str, int, bool, bool]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


async def import_messages(
    tx: Tx,
    export: ExportSource,
    data: TableData,
    recipients: plan.Recipients,
    summary: ImportSummary,
    progress: plan.Progress,
) -> list[int]:
    """Every messages-NNNNNN.json; return the ids of messages Zulip never rendered."""
    files = export.message_files()
    clients = {as_int(r["id"]): as_str(r.get("name")) for r in data.get("zerver_client", [])}
    known_dms = dict(recipients.dm_ids)
    messages = user_messages = reactions = 0
    unrendered: list[int] = []
    progress("messages", 0, len(files))
    for done, name in enumerate(files, 1):
        chunk = await asyncio.to_thread(export.tables, name)
        rows, ums = await asyncio.to_thread(_message_rows, chunk, recipients, clients)
        unrendered += [
            as_int(m["id"])
            for m in chunk.get("zerver_message", [])
            if not isinstance(m.get("rendered_content"), str) or not m["rendered_content"]
        ]
        new_dms = [(rid, key) for key, rid in recipients.dm_ids.items() if key not in known_dms]
        known_dms.update(recipients.dm_ids)
        await bulk.insert_dm_recipients(tx, new_dms)
        await bulk.insert_messages(tx, rows)
        await bulk.insert_user_messages(tx, ums)
        reaction_rows = _reaction_rows(chunk.get("zerver_reaction", []))
        await bulk.insert_reactions(tx, reaction_rows)
        reactions += len(reaction_rows)
        messages += len(rows)
        user_messages += len(ums)
        progress("messages", done, len(files))
    summary.counts["messages"] = messages
    summary.counts["message flags"] = user_messages
    summary.counts["reactions"] = reactions
    return unrendered


def _message_rows(
    chunk: TableData, recipients: plan.Recipients, clients: dict[int, str]
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Our message and user_message rows for one messages-NNNNNN.json (runs in a thread)."""
    rows: list[tuple[object, ...]] = []
    is_dm: set[int] = set()
    for m in chunk.get("zerver_message", []):
        message_id, sender = as_int(m["id"]), as_int(m["sender"])
        recipient_id, stream_id = recipients.resolve(as_int(m["recipient"]), sender)
        if stream_id is None:
            is_dm.add(message_id)
        content = as_str(m.get("content"))
        history, moved = plan.edit_history_json(m.get("edit_history"))
        rows.append(
            (
                message_id,
                sender,
                recipient_id,
                stream_id,
                as_str(m.get("subject", m.get("topic"))) if stream_id is not None else "",
                content,
                sanitize_html(plan.rendered_or_escaped(m.get("rendered_content"), content)),
                clients.get(as_int(m.get("sending_client")), ""),
                as_int(m.get("date_sent")),
                as_opt_int(m.get("last_edit_time")),
                moved,
                history,
                int(bool(m.get("has_link"))),
                int(bool(m.get("has_image"))),
                int(bool(m.get("has_attachment"))),
                int(content.startswith("/me ")),
            )
        )
    ums: list[tuple[object, ...]] = []
    for um in chunk.get("zerver_usermessage", []):  # the hot loop: 10-20 rows per message
        uid, mid, mask = um["user_profile"], um["message"], um.get("flags_mask", 0)
        if not (isinstance(uid, int) and isinstance(mid, int) and isinstance(mask, int)):
            raise ZulipError(f"zerver_usermessage row {um.get('id')} is malformed")
        bits = _teamchat_flags(mask)
        bits = (bits | flags.IS_PRIVATE) if mid in is_dm else (bits & ~flags.IS_PRIVATE)
        ums.append((uid, mid, bits))
    # Sorted by the primary key, rows land next to each other in the index.
    ums.sort()
    return rows, ums


async def import_reactions(tx: Tx, data: TableData, summary: ImportSummary) -> None:
    """realm.json's reactions (Zulip's exports keep them there)."""
    rows = _reaction_rows(data.get("zerver_reaction", []))
    await bulk.insert_reactions(tx, rows)
    summary.counts["reactions"] = summary.counts.get("reactions", 0) + len(rows)


def _reaction_rows(reactions: list[Record]) -> list[tuple[object, ...]]:
    return [
        (
            as_int(r["message"]),
            as_int(r["user_profile"]),
            as_str(r.get("emoji_name")),
            as_str(r.get("emoji_code")),
            as_str(r.get("reaction_type"), "unicode_emoji"),
        )
        for r in reactions
    ]
