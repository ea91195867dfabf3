"""Invitations: POST/GET /invites, POST /invites/multiuse, revoke and resend."""

from __future__ import annotations

from typing import Any

from litestar import Request

from teamchat.actions.org import invites, invites_email
from teamchat.actions.org.invites import InviteOptions
from teamchat.http.params import Params, as_bool, as_int, as_int_list, as_str
from teamchat.http.routing import delete, get, patch, post
from teamchat.http.urls import realm_url
from teamchat.lib.api_types import JsonDict
from teamchat.records import UserRow
from teamchat.runtime import Runtime


def as_expiry(name: str, raw: str) -> int | None:
    """Minutes, or JSON null for an invitation that never expires."""
    return None if raw.strip() == "null" else as_int(name, raw)


_DEFAULT_EXPIRY: int | None = invites.DEFAULT_EXPIRY


def invite_options(params: Params, *, stream_ids_required: bool) -> InviteOptions:
    stream_ids: list[int] = (
        params.required("stream_ids", as_int_list)
        if stream_ids_required
        else params.optional("stream_ids", as_int_list, [])
    )
    return InviteOptions(
        invite_as=params.optional("invite_as", as_int, 400),
        expires_in_minutes=params.optional("invite_expires_in_minutes", as_expiry, _DEFAULT_EXPIRY),
        stream_ids=stream_ids,
        group_ids=params.optional("group_ids", as_int_list, []),
        include_realm_default_subscriptions=params.optional(
            "include_realm_default_subscriptions", as_bool, False
        ),
        welcome_message_custom_text=params.optional("welcome_message_custom_text", as_str, None),
        notify_referrer_on_join=params.optional("notify_referrer_on_join", as_bool, True),
    )


@post("/invites/multiuse")
async def generate_multiuse_invite(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    options = invite_options(params, stream_ids_required=False)
    params.mark_read("notify_referrer_on_join")
    link = await invites.do_create_multiuse_invite(
        rt, user, options, realm_url=realm_url(request, rt)
    )
    return params.success(invite_link=link)


@post("/invites")
async def invite_users(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    emails = params.required("invitee_emails", as_str)
    options = invite_options(params, stream_ids_required=True)
    unsent = await invites_email.do_invite_users(
        rt, user, emails, options, realm_url=realm_url(request, rt)
    )
    if unsent:
        # The invitations exist but their emails did not go: say so, and hand over the links
        # (keys Zulip does not send; its clients ignore them).
        return params.success(
            email_problem=invites_email.unsent_message(rt.settings),
            invite_links=invites_email.unsent_links(unsent),
        )
    return params.success()


@get("/invites")
async def get_user_invites(
    request: Request[Any, Any, Any], params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    found = await invites_email.get_invites(rt, user, realm_url=realm_url(request, rt))
    return params.success(invites=found)


@delete("/invites/{invite_id:int}")
async def revoke_user_invite(
    invite_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await invites_email.do_revoke_user_invite(rt, user, invite_id)
    return params.success()


@delete("/invites/multiuse/{invite_id:int}")
async def revoke_multiuse_invite(
    invite_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await invites_email.do_revoke_multiuse_invite(rt, user, invite_id)
    return params.success()


@post("/invites/{invite_id:int}/resend")
async def resend_user_invite(
    request: Request[Any, Any, Any], invite_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    await invites_email.do_resend_user_invite(rt, user, invite_id, realm_url=realm_url(request, rt))
    return params.success()


@patch("/invites/multiuse/{invite_id:int}")
async def edit_multiuse_invite(
    invite_id: int, params: Params, user: UserRow, rt: Runtime
) -> JsonDict:
    edit = invites.InviteEdit(
        invite_as=params.optional("invite_as", as_int, None),
        stream_ids=params.optional("stream_ids", as_int_list, None),
        group_ids=params.optional("group_ids", as_int_list, None),
        include_realm_default_subscriptions=params.optional(
            "include_realm_default_subscriptions", as_bool, None
        ),
    )
    await invites_email.do_edit_multiuse_invite(rt, user, invite_id, edit)
    return params.success()
