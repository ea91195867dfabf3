"""GET, POST and DELETE /users/me/alert_words."""

from __future__ import annotations

from teamchat.actions.people import alert_words
from teamchat.http.params import Params, as_str_list
from teamchat.http.routing import delete, get, post
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


@get("/users/me/alert_words")
async def list_alert_words(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    return params.success(alert_words=await alert_words.get_alert_words(rt, user))


@post("/users/me/alert_words")
async def add_alert_words(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    words = alert_words.clean_alert_words(params.required("alert_words", as_str_list))
    return params.success(alert_words=await alert_words.do_add_alert_words(rt, user, words))


@delete("/users/me/alert_words")
async def remove_alert_words(params: Params, user: UserRow, rt: Runtime) -> JsonDict:
    words = params.required("alert_words", as_str_list)
    return params.success(alert_words=await alert_words.do_remove_alert_words(rt, user, words))
