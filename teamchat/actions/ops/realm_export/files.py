"""The files of an export: uploads/, avatars/ and emoji/, each with its records.json, as
Zulip's local-storage export writes them (paths the importer copies from)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from teamchat.actions import upload_bytes
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
            for chunk in _attachment_chunks(ctx, attachment):
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


def _attachment_chunks(ctx: ExportContext, attachment: Row) -> Iterator[bytes]:
    """An upload's bytes: from the database, else from the blob store."""
    chunks = iter(ctx.snapshot.attachment_bytes(int(str(attachment["id"]))))
    first = next(chunks, None)
    if first is not None:
        yield first
        yield from chunks
    elif ctx.blobs is not None and int(str(attachment["size"])):
        key = upload_bytes.attachment_key(str(attachment["path_id"]))
        yield from ctx.blobs.chunks(key) or ()


def _stored(ctx: ExportContext, data: object, key: str) -> bytes | None:
    """Bytes read from the database, or (when they are b"" there) from the blob store."""
    if data == b"" and ctx.blobs is not None:
        return ctx.blobs.get(key)
    return data if isinstance(data, bytes) else None


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
        data = _stored(ctx, avatar["data"], upload_bytes.avatar_key(uid))
        if data is None:
            continue
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
        key = upload_bytes.emoji_key(ctx.realm_id, str(row["file_name"]), still=False)
        data = _stored(ctx, ctx.snapshot.emoji_image(int(str(row["id"]))), key)
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
