"""Channel folders: POST /channel_folders/create, GET and PATCH /channel_folders[/{id}]."""

from __future__ import annotations

from teamchat.actions.channels import channel_folders
from teamchat.http.params import Params, as_bool, as_int_list, as_str
from teamchat.http.routing import get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@post("/channel_folders/create")
async def create_channel_folder(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    name = params.required("name", as_str)
    description = params.required("description", as_str)
    folder_id = await channel_folders.check_create_channel_folder(
        rt, user, name=name, description=description
    )
    return params.success(channel_folder_id=folder_id)


@get("/channel_folders")
async def get_channel_folders(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    include_archived = params.optional("include_archived", as_bool, False)
    folders = await channel_folders.get_channel_folders(rt, include_archived=include_archived)
    return params.success(channel_folders=folders)


@patch("/channel_folders")
async def reorder_channel_folders(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    order = params.required("order", as_int_list)
    await channel_folders.check_reorder_channel_folders(rt, user, order)
    return params.success()


@patch("/channel_folders/{channel_folder_id:int}")
async def update_channel_folder(
    channel_folder_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await channel_folders.check_update_channel_folder(
        rt,
        user,
        channel_folder_id,
        name=params.optional("name", as_str, None),
        description=params.optional("description", as_str, None),
        is_archived=params.optional("is_archived", as_bool, None),
    )
    return params.success()
