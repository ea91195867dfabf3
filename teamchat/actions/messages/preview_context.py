"""What the renderer needs for inline image previews, read from the store: the realm's
inline_image_preview setting, the uploaded images a message links, and the camo key."""

from __future__ import annotations

import re

from teamchat.lib import realm_settings
from teamchat.lib.thumbnails import default_format, transcoded_name
from teamchat.records import ImageAttachmentRow
from teamchat.render.context import UploadPreview
from teamchat.store import realm as realm_store
from teamchat.store import thumbnails as thumbnail_store
from teamchat.store import uploads as secret_store
from teamchat.store.db import Conn

CAMO_SECRET_NAME = "camo_key"
# zulip-compat: get_user_upload_previews finds uploads in content with this pattern.
_UPLOAD_PATH_RE = re.compile(r"/user_uploads/(\d+/[/\w.-]+)")


async def camo_key(conn: Conn) -> bytes:
    """The camo signing key (empty before the server first started: no external previews)."""
    secret = await secret_store.get_secret(conn, CAMO_SECRET_NAME)
    return secret.encode() if secret else b""


def upload_preview(image: ImageAttachmentRow) -> UploadPreview | None:
    """What the renderer shows of an uploaded image (None: it could not be decoded)."""
    if image.state == "failed":
        return None
    url = transcoded = None
    if image.state == "ready":
        animated = image.frames > 1
        fmt = default_format(animated)
        url = f"/user_uploads/thumbnail/{image.path_id}/{fmt.name}"
        transcoded = transcoded_name(image.content_type, image.thumbnail_names)
    return UploadPreview(
        width=image.width,
        height=image.height,
        content_type=image.content_type,
        animated=image.state == "ready" and image.frames > 1,
        thumbnail_url=url,
        transcoded=transcoded,
    )


async def upload_previews(conn: Conn, content: str) -> dict[str, UploadPreview]:
    """The uploaded images `content` links, for the renderer."""
    path_ids = list(dict.fromkeys(_UPLOAD_PATH_RE.findall(content)))
    images = await thumbnail_store.images_by_path(conn, path_ids)
    found = {path_id: upload_preview(image) for path_id, image in images.items()}
    return {path_id: preview for path_id, preview in found.items() if preview is not None}


async def image_preview_enabled(conn: Conn) -> bool:
    """The organization's inline_image_preview setting."""
    realm = await realm_store.get_realm(conn)
    return realm is not None and realm_settings.load(realm.settings_json).inline_image_preview
