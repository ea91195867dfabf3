"""`teamchat import`: an organization exported by Zulip's `manage.py export`, in one write.

Everything is written in one transaction, so a failed import leaves the database as empty as
it was. No events: nobody can be listening to an empty database. Imported users have no
password (Zulip exports carry none); `teamchat admin set-password` gives them one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from teamchat.actions.ops.zulip_import import plan
from teamchat.actions.ops.zulip_import.extras import import_extras, render_what_zulip_did_not
from teamchat.actions.ops.zulip_import.files import ImportedFiles, import_files
from teamchat.actions.ops.zulip_import.messages import (
    ImportSummary,
    import_messages,
    import_reactions,
)
from teamchat.actions.ops.zulip_import.plan import Progress, as_int, as_str
from teamchat.actions.org.realm import DEFAULT_REALM_HOST
from teamchat.actions.org.system_bots import (
    NOTIFICATION_BOT,
    SYSTEM_BOT_NAMES,
    WELCOME_BOT,
    create_system_bots,
    system_bot_email,
)
from teamchat.errors import ZulipError
from teamchat.lib import profile_fields as pf
from teamchat.lib import system_groups as sg
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.export_open import ExportSource, OpenedExport
from teamchat.lib.passwords import random_api_key
from teamchat.lib.zulip_export_reader import ExportFormatError, TableData
from teamchat.render.markdown import render_plain_markdown
from teamchat.runtime import Runtime
from teamchat.store import zulip_import as bulk
from teamchat.store.conn import IntegrityError
from teamchat.store.db import Tx

# Zulip's cross-realm bots -> ours (the email gateway's messages go to the Notification Bot).
# SQLite's page cache while importing (the default 2 MB makes index updates read pages again).
IMPORT_CACHE_KIB = 256 * 1024
_CROSS_REALM_BOTS = {
    "welcome-bot@zulip.com": WELCOME_BOT,
    "notification-bot@zulip.com": NOTIFICATION_BOT,
    "emailgateway@zulip.com": NOTIFICATION_BOT,
}


async def import_realm(rt: Runtime, path: Path, progress: Progress) -> ImportSummary:
    """Import the export at `path` (a folder or an archive, from Zulip or from Slack) into
    an empty database."""
    async with rt.db.read() as conn:
        if not await bulk.is_empty(conn):
            raise ZulipError("This database is not empty; import needs a new database.")
    reader = OpenedExport(path, host=DEFAULT_REALM_HOST, now=rt.now())
    try:
        export = await asyncio.to_thread(reader.__enter__)
        return await _import(rt, export, progress)
    except ExportFormatError as exc:
        raise ZulipError(str(exc)) from None
    except IntegrityError as exc:  # a row pointing nowhere, a duplicate email...
        raise ZulipError(f"The export is inconsistent ({exc}); nothing was imported.") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        # A row without a field the format requires, or of the wrong shape or size.
        raise ZulipError(f"The export is malformed ({exc!r}); nothing was imported.") from None
    except RecursionError:
        raise ZulipError(
            "The export is malformed (nested too deeply); nothing was imported."
        ) from None
    finally:
        reader.__exit__(None, None, None)


async def _import(rt: Runtime, export: ExportSource, progress: Progress) -> ImportSummary:
    data = await asyncio.to_thread(export.tables, fmt.REALM_FILE)
    realms = data.get("zerver_realm", [])
    if len(realms) != 1:
        raise ZulipError("realm.json must hold exactly one zerver_realm row")
    summary = ImportSummary(realm_name=as_str(realms[0].get("name")), source=export.kind)
    files = ImportedFiles(rt.blobs)
    try:
        return await _import_all(rt, export, data, summary, files, progress)
    except BaseException:
        await files.forget()  # nothing was imported: neither are its files
        raise


async def _import_all(
    rt: Runtime,
    export: ExportSource,
    data: TableData,
    summary: ImportSummary,
    files: ImportedFiles,
    progress: Progress,
) -> ImportSummary:
    async with rt.db.write() as tx:
        if not await bulk.is_empty(tx):
            raise ZulipError("This database is not empty; import needs a new database.")
        await bulk.defer_foreign_keys(tx)
        progress("organization", 0, 1)
        await _import_org(tx, data, summary, rt.now())
        progress("organization", 1, 1)
        recipients = plan.Recipients(data)
        indexes = await bulk.drop_bulk_indexes(tx)
        await bulk.set_cache_size(tx, IMPORT_CACHE_KIB)
        unrendered = await import_messages(tx, export, data, recipients, summary, progress)
        await import_reactions(tx, data, summary)
        progress("indexes", 0, 1)
        await bulk.create_indexes(tx, indexes)
        await bulk.set_cache_size(tx, None)
        progress("indexes", 1, 1)
        await import_files(
            tx, export, data, summary.counts, lambda d, t: progress("files", d, t), files
        )
        await import_extras(tx, data, summary.counts)
        await render_what_zulip_did_not(tx, unrendered)
        await bulk.finish_streams(tx)
        await bulk.continue_ids(tx)
        await create_system_bots(tx, DEFAULT_REALM_HOST, rt.now())
    return summary


async def _import_org(tx: Tx, data: TableData, summary: ImportSummary, now: int) -> None:
    realm = data["zerver_realm"][0]
    groups = plan.Groups(data)
    streams = data.get("zerver_stream", [])
    stream_ids = {as_int(s["id"]) for s in streams}
    realm_id = await bulk.insert_realm(
        tx,
        name=as_str(realm.get("name")) or "Imported organization",
        description=as_str(realm.get("description")),
        string_id=as_str(realm.get("string_id")),
        host=DEFAULT_REALM_HOST,
        date_created=as_int(realm.get("date_created"), now),
        settings_json=plan.realm_settings_json(realm, groups, stream_ids),
        deactivated=bool(realm.get("deactivated")),
    )
    defaults = data.get("zerver_realmuserdefault", [])
    if defaults:
        settings = plan.personal_settings_json(defaults[0], realm_default=True)
        await bulk.insert_realm_user_default(tx, realm_id, settings)
    await _import_users(tx, data, summary)
    system_ids = await _import_groups(tx, groups, now)
    await bulk.insert_streams(tx, [plan.stream_row(s, groups, system_ids) for s in streams])
    summary.counts["channels"] = len(streams)
    await _import_subscriptions(tx, data, summary)
    await bulk.insert_default_streams(
        tx, [as_int(r["stream"]) for r in data.get("zerver_defaultstream", [])]
    )
    await _import_realm_config(tx, data, summary)
    await _import_personal(tx, data)


async def _import_users(tx: Tx, data: TableData, summary: ImportSummary) -> None:
    rows = [plan.user_row(r) for r in data.get("zerver_userprofile", [])]
    rows += [
        plan.user_row(r, is_active=False) for r in data.get("zerver_userprofile_mirrordummy", [])
    ]
    for bot in data.get("zerver_userprofile_crossrealm", []):
        key = _CROSS_REALM_BOTS.get(as_str(bot.get("email")))
        if key is None or any(r[1] == system_bot_email(key, DEFAULT_REALM_HOST) for r in rows):
            continue
        joined = as_int(data["zerver_realm"][0].get("date_created"))
        rows.append(_system_bot_row(as_int(bot["id"]), key, joined))
    rows.sort(key=lambda r: as_int(r[0]))
    await bulk.insert_users(tx, rows)
    await bulk.grant_can_create_users(
        tx,
        [as_int(r["id"]) for r in data.get("zerver_userprofile", []) if r.get("can_create_users")],
    )
    system = {system_bot_email(k, DEFAULT_REALM_HOST) for k in SYSTEM_BOT_NAMES}
    summary.users = [
        (str(r[1]), str(r[2]), as_int(r[4]), bool(r[6]), bool(r[5]))
        for r in rows
        if r[1] not in system
    ]
    summary.counts["users"] = len(summary.users)


def _system_bot_row(user_id: int, key: str, date_joined: int) -> tuple[object, ...]:
    """Our system bot `key` under the id Zulip's cross-realm bot had."""
    return (
        user_id, system_bot_email(key, DEFAULT_REALM_HOST), SYSTEM_BOT_NAMES[key],
        random_api_key(), 400, 1, 1, 1, None, date_joined, "", "G", 1, 1, "{}",
    )  # fmt: skip


async def _import_groups(tx: Tx, groups: plan.Groups, now: int) -> dict[str, int]:
    """Named groups with their ids, ours for system groups the export lacks; members and
    subgroups (system groups' members follow from roles, so only their edges are ours)."""
    rows = plan.group_rows(groups)
    system_ids = dict(groups.system_ids)
    next_id = max((as_int(r[0]) for r in rows), default=0) + 1
    for name in plan.SYSTEM_GROUP_NAMES:
        if name not in system_ids:
            system_ids[name] = next_id
            rows.append((next_id, name, sg.SYSTEM_GROUPS[name][0], 1, 0, now, None, "{}"))
            next_id += 1
    await bulk.insert_groups(tx, rows)
    system = set(system_ids.values())
    members = [
        (gid, uid)
        for gid, uids in groups.members.items()
        if gid in groups.named and gid not in system
        for uid in uids
    ]
    subgroups = [
        (gid, sub)
        for gid, subs in groups.subgroups.items()
        if gid in groups.named and gid not in system
        for sub in subs
    ]
    for name, (_, _, subs) in sg.SYSTEM_GROUPS.items():
        subgroups += [(system_ids[name], system_ids[sub]) for sub in subs]
    await bulk.insert_group_members(tx, members, subgroups)
    return {name: system_ids[name] for name in plan.SYSTEM_GROUP_NAMES}


async def _import_subscriptions(tx: Tx, data: TableData, summary: ImportSummary) -> None:
    recipients = plan.Recipients(data)
    rows = []
    for r in data.get("zerver_subscription", []):
        stream_id = recipients.stream_id(as_int(r["recipient"]))
        if stream_id is not None:
            rows.append(plan.subscription_row(stream_id, r))
    await bulk.insert_subscriptions(tx, rows)
    summary.counts["subscriptions"] = len(rows)


async def _import_realm_config(tx: Tx, data: TableData, summary: ImportSummary) -> None:
    """Custom profile fields and values, linkifiers, code playgrounds."""
    fields = [
        (
            as_int(r["id"]),
            as_str(r.get("name")),
            as_str(r.get("hint")),
            as_int(r.get("field_type"), 1),
            as_str(r.get("field_data")),
            as_int(r.get("order")),
            int(bool(r.get("display_in_profile_summary"))),
            int(bool(r.get("required"))),
            int(bool(r.get("editable_by_user", True))),
            int(bool(r.get("use_for_user_matching"))),
        )
        for r in data.get("zerver_customprofilefield", [])
    ]
    rendered_fields = {field[0] for field in fields if field[3] in pf.RENDERED_TYPES}
    values = [
        (
            as_int(r["user_profile"]),
            as_int(r["field"]),
            as_str(r.get("value")),
            # Never the export's HTML: rendered from the value, as a profile edit would be.
            render_plain_markdown(as_str(r.get("value")))
            if as_int(r["field"]) in rendered_fields
            else None,
        )
        for r in data.get("zerver_customprofilefieldvalue", [])
    ]
    await bulk.insert_profile_fields(tx, fields, values)
    linkifiers = [
        (
            as_int(r["id"]),
            as_str(r.get("pattern")),
            as_str(r.get("url_template")) or as_str(r.get("url_format_string")),
            as_int(r.get("order")),
        )
        for r in data.get("zerver_realmfilter", [])
    ]
    playgrounds = [
        (
            as_int(r["id"]),
            as_str(r.get("name")),
            as_str(r.get("pygments_language")),
            plan.playground_template(r),
        )
        for r in data.get("zerver_realmplayground", [])
    ]
    await bulk.insert_linkifiers(tx, linkifiers, playgrounds)
    summary.counts["custom profile fields"] = len(fields)
    summary.counts["linkifiers"] = len(linkifiers)
    summary.counts["playgrounds"] = len(playgrounds)


async def _import_personal(tx: Tx, data: TableData) -> None:
    """Alert words, muted users and topic visibility policies."""
    words = [
        (as_int(r["user_profile"]), as_str(r.get("word"))) for r in data.get("zerver_alertword", [])
    ]
    await bulk.insert_personal(tx, "alert_word", words)
    muted = [
        (as_int(r["user_profile"]), as_int(r["muted_user"]), as_int(r.get("date_muted")))
        for r in data.get("zerver_muteduser", [])
    ]
    await bulk.insert_personal(tx, "muted_user", muted)
    topics = [
        (
            as_int(r["user_profile"]),
            as_int(r["stream"]),
            as_str(r.get("topic_name")),
            as_int(r.get("visibility_policy"), 1),
            as_int(r.get("last_updated")),
        )
        for r in data.get("zerver_usertopic", [])
        if as_int(r.get("visibility_policy")) in (1, 2, 3)
    ]
    await bulk.insert_personal(tx, "user_topic", topics)
