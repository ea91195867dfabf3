"""GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{saved_snippet_id}."""

from __future__ import annotations

from teamchat.actions.messages import saved_snippets
from teamchat.http.params import Params, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/saved_snippets")
async def list_saved_snippets(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(saved_snippets=await saved_snippets.get_saved_snippets(rt, user))


@post("/saved_snippets")
async def create_saved_snippet(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    title = saved_snippets.clean_title(params.required("title", as_str))
    content = saved_snippets.clean_content(params.required("content", as_str))
    snippet_id = await saved_snippets.do_create_saved_snippet(rt, user, title, content)
    return params.success(saved_snippet_id=snippet_id)


@patch("/saved_snippets/{saved_snippet_id:int}")
async def edit_saved_snippet(
    saved_snippet_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    title = params.optional("title", as_str, None)
    content = params.optional("content", as_str, None)
    await saved_snippets.do_edit_saved_snippet(
        rt,
        user,
        saved_snippet_id,
        saved_snippets.clean_title(title) if title is not None else None,
        saved_snippets.clean_content(content) if content is not None else None,
    )
    return params.success()


@delete("/saved_snippets/{saved_snippet_id:int}")
async def delete_saved_snippet(
    saved_snippet_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await saved_snippets.do_delete_saved_snippet(rt, user, saved_snippet_id)
    return params.success()
