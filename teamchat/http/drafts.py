"""GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}."""

from __future__ import annotations

import msgspec

from teamchat.actions.messages import drafts
from teamchat.errors import ZulipError
from teamchat.http.params import Params, as_json
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def _draft(name: str, value: object) -> drafts.DraftData:
    try:
        return msgspec.convert(value, drafts.DraftData)
    except msgspec.ValidationError as error:
        raise ZulipError(f"{name} is not a valid draft: {error}") from None


def as_drafts(name: str, raw: str) -> list[drafts.DraftData]:
    value = as_json(name, raw)
    if not isinstance(value, list):
        raise ZulipError(f"{name} is not a list")
    return [_draft(f"{name}[{index}]", item) for index, item in enumerate(value)]


def as_draft(name: str, raw: str) -> drafts.DraftData:
    return _draft(name, as_json(name, raw))


@get("/drafts")
async def list_drafts(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    found = await drafts.get_drafts(rt, user)
    return params.success(count=len(found), drafts=found)


@post("/drafts")
async def create_drafts(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    new: list[drafts.DraftData] = params.optional("drafts", as_drafts, [])
    return params.success(ids=await drafts.do_create_drafts(rt, user, new))


@patch("/drafts/{draft_id:int}")
async def edit_draft(draft_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await drafts.do_edit_draft(rt, user, draft_id, params.required("draft", as_draft))
    return params.success()


@delete("/drafts/{draft_id:int}")
async def delete_draft(draft_id: int, params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    await drafts.do_delete_draft(rt, user, draft_id)
    return params.success()
