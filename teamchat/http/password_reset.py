"""Lost passwords (site root, Zulip's paths): GET/POST /accounts/password/reset/ (ask for a
link), GET /accounts/password/reset/done/ (the same answer for every address), GET/POST
/accounts/password/reset/{token}/ (choose the new password, then log in); and POST
/accounts/password/strength/, zxcvbn's verdict that the new-password pages show as one types.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import msgspec
from litestar import Request, Response
from litestar.response import Redirect

from teamchat.actions.org import realm as realm_actions
from teamchat.actions.people import password_reset
from teamchat.actions.people.password_checks import client_limit_key
from teamchat.errors import RateLimitedError
from teamchat.http.html import html, pages_css_url, script_url
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get, post
from teamchat.http.web_login import login_form
from teamchat.lib import account_pages, signup_pages
from teamchat.lib.api_types import JsonDict
from teamchat.lib.passwords import password_strength
from teamchat.lib.validation import is_valid_email
from teamchat.runtime import Runtime

# The token is in the address: no Referer may carry it to another site.
_PRIVATE = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


@get("/accounts/password/reset", opt={"public": True})
async def password_reset_page(rt: Runtime) -> Response[str]:
    realm = await realm_actions.get_realm(rt)
    return html(account_pages.reset_request_form(realm_name=realm.name, css_url=pages_css_url()))


@post("/accounts/password/reset", opt={"public": True})
async def password_reset_submit(
    request: Request[Any, Any, Any], params: Params, rt: Runtime
) -> Response[str] | Redirect:
    email = params.optional("email", as_str, "").strip()
    if not is_valid_email(email):
        realm = await realm_actions.get_realm(rt)
        page = account_pages.reset_request_form(
            realm_name=realm.name,
            css_url=pages_css_url(),
            email=email,
            problem="Enter the email address of your account.",
        )
        return html(page, 400)
    client_ip = request.client.host if request.client is not None else ""
    password_reset.request_password_reset(rt, email, client_ip)
    return Redirect(f"/accounts/password/reset/done/?email={quote(email)}", status_code=303)


@get("/accounts/password/reset/done", opt={"public": True})
async def password_reset_done(params: Params) -> Response[str]:
    email = params.optional("email", as_str, "")[:254]
    hours = password_reset.RESET_LINK_VALIDITY_SECS // 3600
    page = account_pages.reset_requested(css_url=pages_css_url(), email=email, hours=hours)
    return html(page)


def _set_password_form(
    realm_name: str, token: str, email: str, problem: str | None = None, status: int = 200
) -> Response[str]:
    page = account_pages.set_password_form(
        realm_name=realm_name,
        css_url=pages_css_url(),
        script_url=script_url(signup_pages.STRENGTH_SCRIPT),
        action=f"{password_reset.RESET_PATH}{token}/",
        email=email,
        problem=problem,
    )
    return html(page, status, headers=_PRIVATE)


def _dead_link(realm_name: str) -> Response[str]:
    page = signup_pages.link_problem(
        realm_name=realm_name, css_url=pages_css_url(), problem=password_reset.LINK_PROBLEM
    )
    return html(page, 404, headers=_PRIVATE)


@get("/accounts/password/reset/{token:str}", opt={"public": True})
async def set_password_page(token: str, rt: Runtime) -> Response[str]:
    realm = await realm_actions.get_realm(rt)
    user = await password_reset.access_reset(rt, token)
    if user is None:
        return _dead_link(realm.name)
    return _set_password_form(realm.name, token, user.delivery_email)


@post("/accounts/password/reset/{token:str}", opt={"public": True})
async def set_password_submit(token: str, params: Params, rt: Runtime) -> Response[str]:
    realm = await realm_actions.get_realm(rt)
    user = await password_reset.access_reset(rt, token)
    if user is None:
        return _dead_link(realm.name)
    result = await password_reset.check_reset_password(
        rt,
        token,
        params.optional("new_password", as_str, ""),
        params.optional("new_password_confirm", as_str, ""),
    )
    if result.user is None:
        if result.problem == password_reset.LINK_PROBLEM:
            return _dead_link(realm.name)
        return _set_password_form(realm.name, token, user.delivery_email, result.problem, 400)
    # zulip-compat: Zulip sends a person who reset their password to the log-in page.
    notice = "Your password has been changed. Log in with your new password."
    return login_form(realm.name, username=result.user.delivery_email, notice=notice)


@post("/accounts/password/strength", opt={"public": True})
async def password_strength_check(
    request: Request[Any, Any, Any], params: Params, rt: Runtime
) -> JsonDict:
    password = params.required("password", as_str)
    # zxcvbn costs up to a tenth of a second of CPU: a budget per client, off the event loop.
    client_ip = request.client.host if request.client is not None else ""
    key = "strength:" + client_limit_key(client_ip)
    retry_after = rt.api_limiter.retry_after(key)
    if retry_after is not None:
        raise RateLimitedError(retry_after)
    rt.api_limiter.hit(key)
    strength = await asyncio.to_thread(password_strength, password)
    return params.success(**msgspec.to_builtins(strength))


ROOT_ROUTES = [
    password_reset_page,
    password_reset_submit,
    password_reset_done,
    set_password_page,
    set_password_submit,
    password_strength_check,
]
