"""The files of an export: uploads/, avatars/ and emoji/, each with its records.json, as
Zulip's local-storage export writes them (paths the importer copies from)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from teamchat.actions.ops.realm_export.context import ExportContext
from teamchat.lib import zulip_export_format as fmt
from teamchat.store.export_snapshot import Row

Progress = Callable[[int], None]


def _safe_join(root: Path, relative: str) -> Path:
    """`root/relative`, refusing paths that would leave `root`."""
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ValueError(f"unsafe path in export: {relative!r}")
    return target


def _write_records(folder: Path, records: list[Row]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    records.sort(key=lambda record: str(record["path"]))
    (folder / fmt.RECORDS_FILE).write_bytes(msgspec.json.encode(records))


def write_uploads(ctx: ExportContext, root: Path, attachments: list[Row], step: Progress) -> int:
    """Copy every exported upload under uploads/; return the bytes written."""
    folder = root / fmt.UPLOADS_DIR
    records: list[Row] = []
    written = 0
    for attachment in attachments:
        path = str(attachment["path_id"])
        target = _safe_join(folder, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as out:
            for chunk in ctx.snapshot.attachment_bytes(int(str(attachment["id"]))):
                written += out.write(chunk)
        owner = ctx.user_by_id.get(int(str(attachment["owner"])), {})
        records.append(
            {
                "realm_id": ctx.realm_id,
                "user_profile_id": attachment["owner"],
                "user_profile_email": owner.get("delivery_email"),
                "s3_path": path,
                "path": path,
                "size": attachment["size"],
                "last_modified": attachment["create_time"],
                "content_type": attachment["content_type"],
            }
        )
        step(1)
    _write_records(folder, records)
    return written


def write_avatars(ctx: ExportContext, root: Path) -> int:
    """Copy uploaded avatars under avatars/ (the original and the served image)."""
    folder = root / fmt.AVATARS_DIR
    records: list[Row] = []
    written = 0
    for avatar in ctx.snapshot.avatars():
        uid = int(str(avatar["user_id"]))
        if not ctx.is_exported_user(uid):
            continue
        base = fmt.avatar_path(ctx.realm_id, uid)
        data = avatar["data"]
        assert isinstance(data, bytes)
        for suffix in (fmt.AVATAR_ORIGINAL_SUFFIX, ".png"):
            path = base + suffix
            target = _safe_join(folder, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            written += target.write_bytes(data)
            records.append(
                {
                    "realm_id": ctx.realm_id,
                    "user_profile_id": uid,
                    "user_profile_email": ctx.user_by_id[uid]["delivery_email"],
                    "s3_path": path,
                    "path": path,
                    "size": len(data),
                    "last_modified": float(ctx.now),
                    "content_type": avatar["content_type"],
                }
            )
    _write_records(folder, records)
    return written


def write_emoji(ctx: ExportContext, root: Path, emoji: list[Row]) -> int:
    """Copy custom emoji images under emoji/."""
    folder = root / fmt.EMOJI_DIR
    records: list[Row] = []
    written = 0
    for row in emoji:
        data = ctx.snapshot.emoji_image(int(str(row["id"])))
        if data is None:
            continue
        path = fmt.EMOJI_PATH_TEMPLATE.format(realm_id=ctx.realm_id, file_name=row["file_name"])
        target = _safe_join(folder, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        written += target.write_bytes(data)
        records.append(
            {
                "realm_id": ctx.realm_id,
                "author": row["author"],
                "path": path,
                "s3_path": path,
                "file_name": row["file_name"],
                "name": row["name"],
                "deactivated": row["deactivated"],
            }
        )
    _write_records(folder, records)
    return written
