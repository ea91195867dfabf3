"""Custom emoji: GET /realm/emoji, POST and DELETE /realm/emoji/{emoji_name}, the images,
and the Unicode emoji data file the mobile app loads (server_emoji_data_url)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.response import Stream

from teamchat.actions.org import realm_emoji
from teamchat.errors import ZulipError
from teamchat.http.multipart import close_all, receive_multipart
from teamchat.http.params import Params
from teamchat.http.routing import delete, get, post
from teamchat.http.user_content import user_content_response
from teamchat.lib import emoji
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime

_MAX_EMOJI_BYTES = realm_emoji.MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024
# Room for the multipart framing around the image.
_MAX_BODY_BYTES = _MAX_EMOJI_BYTES + 64 * 1024
# Emoji images never change under their URL (a new upload gets a new file name).
_IMAGE_CACHE_CONTROL = "public, max-age=31536000, immutable"


@get("/realm/emoji")
async def get_realm_emoji(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(emoji=await realm_emoji.list_realm_emoji(rt))


# `path`: a name with slashes gets Zulip's invalid-name error rather than a 404.
@post("/realm/emoji/{emoji_name:path}", request_max_body_size=_MAX_BODY_BYTES)
async def upload_custom_emoji(
    emoji_name: str, request: Request[Any, Any, Any], user: UserRow, rt: Runtime
) -> JsonDict:
    name = await realm_emoji.check_can_add_realm_emoji(rt, user, emoji_name.lstrip("/"))
    files, fields = await receive_multipart(
        request, _MAX_EMOJI_BYTES, realm_emoji.MAX_EMOJI_FILE_SIZE_MIB
    )
    params = Params({**dict(request.query_params.items()), **fields})
    try:
        if len(files) != 1:
            raise ZulipError("You must upload exactly one file.")
        [received] = files
        data = await asyncio.to_thread(received.data.read)
    finally:
        close_all(files)
    await realm_emoji.check_add_realm_emoji(
        rt, user, name, received.file_name, received.content_type, data
    )
    return params.success()


@delete("/realm/emoji/{emoji_name:path}")
async def delete_custom_emoji(
    emoji_name: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await realm_emoji.check_remove_realm_emoji(rt, user, emoji_name.lstrip("/"))
    return params.success()


async def _image_response(image: tuple[str, bytes]) -> Stream:
    _, data = image  # the stored type is not trusted: the helper goes by the bytes
    return await user_content_response(data, size=len(data), cache_control=_IMAGE_CACHE_CONTROL)


@get("/user_avatars/{realm_id:int}/emoji/images/{file_name:str}", opt={"public": True})
async def serve_emoji_image(realm_id: int, file_name: str, rt: Runtime) -> Stream:
    image = await realm_emoji.get_emoji_image(rt, realm_id, file_name, still=False)
    return await _image_response(image)


@get("/user_avatars/{realm_id:int}/emoji/images/still/{file_name:str}", opt={"public": True})
async def serve_emoji_still(realm_id: int, file_name: str, rt: Runtime) -> Stream:
    image = await realm_emoji.get_emoji_image(rt, realm_id, file_name, still=True)
    return await _image_response(image)


@functools.cache
def _emoji_data() -> tuple[bytes, str]:
    body = msgspec.json.encode({"code_to_names": emoji.code_to_names()})
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@get(realm_emoji.EMOJI_DATA_PATH, opt={"public": True})
async def serve_emoji_data(request: Request[Any, Any, Any]) -> Response[bytes]:
    body, etag = _emoji_data()
    # The data changes only with a teamchat upgrade: revalidate daily, by ETag.
    headers = {"Cache-Control": "public, max-age=86400", "ETag": etag}
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


# Served at the site root, not under /api/v1.
ROOT_ROUTES = [serve_emoji_image, serve_emoji_still, serve_emoji_data]
