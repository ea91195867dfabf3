"""Linkifiers (GET /realm/linkifiers, /realm/filters...) and code playgrounds."""

from __future__ import annotations

from teamchat.actions.org import linkifiers
from teamchat.http.params import Params, as_int_list, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/realm/linkifiers")
async def list_linkifiers(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(linkifiers=await linkifiers.get_linkifiers(rt))


@post("/realm/filters")
async def create_linkifier(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    pattern = params.required("pattern", as_str)
    url_template = params.required("url_template", as_str)
    linkifier_id = await linkifiers.check_add_linkifier(rt, user, pattern, url_template)
    return params.success(id=linkifier_id)


@patch("/realm/filters/{filter_id:int}")
async def update_linkifier(filter_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    pattern = params.required("pattern", as_str)
    url_template = params.required("url_template", as_str)
    await linkifiers.check_update_linkifier(rt, user, filter_id, pattern, url_template)
    return params.success()


@delete("/realm/filters/{filter_id:int}")
async def delete_linkifier(filter_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await linkifiers.check_remove_linkifier(rt, user, filter_id)
    return params.success()


@patch("/realm/linkifiers")
async def reorder_linkifiers(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    ordered = params.required("ordered_linkifier_ids", as_int_list)
    await linkifiers.check_reorder_linkifiers(rt, user, ordered)
    return params.success()


@post("/realm/playgrounds")
async def add_realm_playground(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    playground_id = await linkifiers.check_add_playground(
        rt,
        user,
        name=params.required("name", as_str),
        pygments_language=params.required("pygments_language", as_str),
        url_template=params.required("url_template", as_str),
    )
    return params.success(id=playground_id)


@delete("/realm/playgrounds/{playground_id:int}")
async def delete_realm_playground(
    playground_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await linkifiers.check_remove_playground(rt, user, playground_id)
    return params.success()
