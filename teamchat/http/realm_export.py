"""POST/GET /export/realm, DELETE /export/realm/{export_id}, GET /export/realm/consents, and
the finished tarballs at /user_avatars/exports/... (served like uploads)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request
from litestar.response import Stream

from teamchat.actions.ops.realm_export import exports
from teamchat.http.params import Params, as_int_in
from teamchat.http.routing import delete, get, post
from teamchat.http.urls import realm_url
from teamchat.http.user_content import user_content_response
from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/export/realm")
async def export_realm(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    export_type = params.optional(
        "export_type",
        as_int_in(*exports.API_EXPORT_TYPES),
        default=fmt.EXPORT_PUBLIC,
    )
    export_id = await exports.check_request_export(rt, user, export_type, realm_url(request, rt))
    return params.success(id=export_id)


@get("/export/realm")
async def get_realm_exports(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    found = await exports.get_realm_exports(rt, user)
    return params.success(exports=msgspec.to_builtins(found))


@delete("/export/realm/{export_id:int}")
async def delete_realm_export(
    export_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await exports.do_delete_realm_export(rt, user, export_id)
    return params.success()


@get("/export/realm/consents")
async def get_realm_export_consents(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(export_consents=await exports.get_export_consents(rt, user))


@get("/user_avatars/exports/{realm_id:int}/{secret:str}/{file_name:str}", opt={"public": True})
async def serve_realm_export(realm_id: int, secret: str, file_name: str, rt: Runtime) -> Stream:
    row = await exports.access_export_file(rt, realm_id, secret, file_name)
    return await user_content_response(
        exports.stream_export_file(rt, row),
        size=row.size or 0,
        file_name=row.file_name,
        cache_control="private, max-age=3600",
    )


# Served at the site root, not under /api/v1.
ROOT_ROUTES = [serve_realm_export]
