"""Uploads and avatars: POST /user_uploads, GET /attachments, file and avatar URLs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from litestar import Request
from litestar.response import Redirect, Stream

from teamchat.actions.messages import uploads
from teamchat.actions.people import avatars
from teamchat.errors import ResourceNotFoundError, ZulipError
from teamchat.http.multipart import ReceivedFile, close_all, receive_multipart
from teamchat.http.params import Params
from teamchat.http.routing import delete, get, post
from teamchat.http.user_content import user_content_response
from teamchat.lib import wire
from teamchat.lib.api_types import JsonDict
from teamchat.lib.placeholder_avatar import unknown_user_avatar_png
from teamchat.records import AttachmentRow, UserRow
from teamchat.runtime import Runtime


async def _one_file(request: Request[Any, Any, Any], max_mib: int) -> tuple[ReceivedFile, Params]:
    files, fields = await receive_multipart(request, max_mib * 1024 * 1024, max_mib)
    params = Params({**dict(request.query_params.items()), **fields})
    if len(files) != 1:
        close_all(files)
        if files:
            raise ZulipError("You may only upload one file at a time")
        raise ZulipError("You must specify a file to upload")
    return files[0], params


@post("/user_uploads")
async def upload_file(request: Request[Any, Any, Any], user: UserRow, rt: Runtime) -> JsonDict:
    received, params = await _one_file(request, rt.settings.max_file_upload_size_mib)
    try:
        row = await uploads.do_upload_file(
            rt, user, received.file_name, received.content_type, received.data
        )
    finally:
        received.data.close()
    uri = f"/user_uploads/{row.path_id}"
    # zulip-compat: `uri` is the pre-9.0 name of `url`; clients still read either.
    return params.success(uri=uri, url=uri, filename=row.file_name)


@get("/user_uploads/{realm_id:int}/{path_id:path}")
async def get_temporary_upload_url(
    realm_id: int, path_id: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    row = await uploads.access_upload(rt, user, f"{realm_id}{path_id}")
    return params.success(url=await uploads.temporary_url(rt, row))


@get("/attachments")
async def get_attachments(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    attachments, used = await uploads.list_attachments(rt, user)
    return params.success(attachments=attachments, upload_space_used=used)


@delete("/attachments/{attachment_id:int}")
async def remove_attachment(
    attachment_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await uploads.do_delete_attachment(rt, user, attachment_id)
    return params.success()


@post("/users/me/avatar")
async def set_avatar(request: Request[Any, Any, Any], user: UserRow, rt: Runtime) -> JsonDict:
    received, params = await _one_file(request, avatars.MAX_AVATAR_FILE_SIZE_MIB)
    try:
        data = await asyncio.to_thread(received.data.read)
    finally:
        received.data.close()
    url = await avatars.do_set_avatar(rt, user, received.content_type, data)
    return params.success(avatar_url=url)


@delete("/users/me/avatar")
async def delete_avatar(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await avatars.do_delete_avatar(rt, user)
    return params.success()


def _file_response(rt: Runtime, row: AttachmentRow) -> Awaitable[Stream]:
    return user_content_response(
        uploads.stream_upload(rt, row),
        size=row.size,
        file_name=row.file_name,
        cache_control="private, max-age=86400",
    )


@get("/user_uploads/temporary/{token:str}/{file_name:str}", opt={"public": True})
async def serve_temporary_upload(token: str, file_name: str, rt: Runtime) -> Stream:
    row = await uploads.access_temporary(rt, token)
    if row.file_name != file_name:
        raise ResourceNotFoundError("File not found")
    return await _file_response(rt, row)


@get("/user_uploads/{realm_id:int}/{path_id:path}")
async def serve_upload(realm_id: int, path_id: str, user: UserRow, rt: Runtime) -> Stream:
    row = await uploads.access_upload(rt, user, f"{realm_id}{path_id}")
    return await _file_response(rt, row)


@get(["/avatar/{user_id_or_email:str}", "/avatar/{user_id_or_email:str}/medium"])
async def avatar_redirect(user_id_or_email: str, user: UserRow, rt: Runtime) -> Redirect:
    url = await avatars.avatar_redirect_url(rt, user_id_or_email)
    return Redirect(url, status_code=302)


@get("/user_avatars/{user_id:int}", opt={"public": True})
async def serve_avatar(user_id: int, rt: Runtime) -> Stream:
    _, data = await avatars.get_uploaded_avatar(rt, user_id)
    return await user_content_response(
        data, size=len(data), cache_control="public, max-age=31536000"
    )


@get(wire.INACCESSIBLE_USER_AVATAR_URL, opt={"public": True})
async def serve_unknown_user_avatar() -> Stream:
    """The avatar of Zulip's "Unknown user" placeholders (people a guest may not access)."""
    data = unknown_user_avatar_png()
    return await user_content_response(data, size=len(data), cache_control="public, max-age=86400")


# Served at the site root, not under /api/v1.
ROOT_ROUTES = [
    serve_temporary_upload,
    serve_upload,
    avatar_redirect,
    serve_avatar,
    serve_unknown_user_avatar,
]
