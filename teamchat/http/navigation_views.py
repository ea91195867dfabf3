"""GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment}."""

from __future__ import annotations

from teamchat.actions.people import navigation_views as views
from teamchat.http.params import Params, as_bool, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/navigation_views")
async def list_navigation_views(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(navigation_views=await views.get_navigation_views(rt, user))


@post("/navigation_views")
async def add_navigation_view(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    fragment = views.clean_fragment(params.required("fragment", as_str))
    is_pinned = params.required("is_pinned", as_bool)
    name = params.optional("name", as_str, None)
    clean = views.clean_name(name) if name is not None else None
    await views.do_add_navigation_view(rt, user, fragment, is_pinned, clean)
    return params.success()


# `path`: a view's fragment is a URL hash such as "narrow/is/alerted".
@patch("/navigation_views/{fragment:path}")
async def edit_navigation_view(
    fragment: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    is_pinned = params.optional("is_pinned", as_bool, None)
    name = params.optional("name", as_str, None)
    await views.do_update_navigation_view(
        rt,
        user,
        views.clean_fragment(fragment.lstrip("/")),
        is_pinned,
        views.clean_name(name) if name is not None else None,
    )
    return params.success()


@delete("/navigation_views/{fragment:path}")
async def remove_navigation_view(
    fragment: str, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await views.do_remove_navigation_view(rt, user, views.clean_fragment(fragment.lstrip("/")))
    return params.success()
