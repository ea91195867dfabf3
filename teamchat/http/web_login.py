"""Browser log-in for the web client (site root): GET/POST /login/, POST /accounts/logout/,
GET/POST /accounts/api_key/ (the API key and zuliprc of the logged-in person, shown only after
the password is entered again, with "Generate a new API key" beside it; Zulip's flow).

The session cookie is HttpOnly and SameSite=Lax (Secure behind HTTPS); the `csrftoken` cookie
is readable by the client, which sends it back as X-CSRFToken on every /json write.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.response import Redirect

from teamchat.actions.org import realm as realm_actions
from teamchat.actions.people import password_checks, web_sessions
from teamchat.actions.people import users as user_actions
from teamchat.errors import CsrfFailedError, RateLimitedError, UserDeactivatedError, ZulipError
from teamchat.http.auth import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, check_csrf
from teamchat.http.html import html, pages_css_url
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get, post
from teamchat.http.urls import realm_url, request_origin
from teamchat.lib import account_pages, web_pages, wire
from teamchat.records import UserRow, WebSessionRow
from teamchat.runtime import Runtime

_NO_STORE = {"Cache-Control": "no-store"}


def session_cookies(
    request: Request[Any, Any, Any], rt: Runtime, token: str, session: WebSessionRow
) -> list[Cookie]:
    """The two cookies a new session sets."""
    secure = "https://" in (realm_url(request, rt)[:8], request_origin(request)[:8])
    max_age = int(session.expires_at - session.created_at)
    common: dict[str, Any] = {"path": "/", "samesite": "lax", "secure": secure, "max_age": max_age}
    return [
        Cookie(key=SESSION_COOKIE, value=token, httponly=True, **common),
        Cookie(key=CSRF_COOKIE, value=session.csrf_token, httponly=False, **common),
    ]


async def logged_in_redirect(
    request: Request[Any, Any, Any], rt: Runtime, user: UserRow
) -> Redirect:
    """Start a session for `user` and open the client."""
    token, session = await web_sessions.do_create_session(rt, user)
    return Redirect("/", status_code=303, cookies=session_cookies(request, rt, token, session))


async def current_session(
    request: Request[Any, Any, Any], rt: Runtime
) -> tuple[UserRow, WebSessionRow] | None:
    """The live session of the request's cookie, or None (never an error)."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    try:
        return await web_sessions.authenticate_session(rt, token)
    except ZulipError:
        return None


def login_form(
    realm_name: str, username: str = "", problem: str = "", status: int = 200, notice: str = ""
) -> Response[str]:
    page = web_pages.login_page(
        realm_name=realm_name,
        css_url=pages_css_url(),
        username=username,
        problem=problem,
        notice=notice,
    )
    return html(page, status)


def limited_text(error: RateLimitedError) -> str:
    """A rate limit as a person reads it."""
    wait = web_pages.wait_in_words(error.retry_after_secs)
    return f"Too many failed attempts; try again in {wait}."


@get("/login", opt={"public": True})
async def login_page(request: Request[Any, Any, Any], rt: Runtime) -> Response[str] | Redirect:
    if await current_session(request, rt) is not None:
        return Redirect("/", status_code=302)
    return login_form((await realm_actions.get_realm(rt)).name)


def _same_origin(request: Request[Any, Any, Any], rt: Runtime) -> bool:
    """Browsers send Origin on form posts: refuse log-ins posted from another site's page."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    own = {urlsplit(realm_url(request, rt))[:2], urlsplit(request_origin(request))[:2]}
    return urlsplit(origin)[:2] in own


@post("/login", opt={"public": True})
async def login_submit(
    request: Request[Any, Any, Any], params: Params, rt: Runtime
) -> Response[str] | Redirect:
    realm_name = (await realm_actions.get_realm(rt)).name
    username = params.optional("username", as_str, "")
    password = params.optional("password", as_str, "")
    if not _same_origin(request, rt):
        raise CsrfFailedError("Origin checking failed.")
    client_ip = request.client.host if request.client is not None else ""
    try:
        token, session = await web_sessions.log_in(rt, username, password, client_ip)
    except RateLimitedError as error:
        return login_form(realm_name, username, limited_text(error), 429)
    except UserDeactivatedError as error:
        # zulip-compat: the log-in form names the account and who can bring it back.
        problem = (
            f"Your account {username} has been deactivated. "
            "Ask an administrator of the organization to reactivate it."
        )
        return login_form(realm_name, username, problem, error.http_status)
    except ZulipError as error:
        return login_form(realm_name, username, error.msg, error.http_status)
    cookies = session_cookies(request, rt, token, session)
    return Redirect("/", status_code=303, cookies=cookies)


@post("/accounts/logout", opt={"public": True})
async def logout(request: Request[Any, Any, Any], params: Params, rt: Runtime) -> Redirect:
    token = request.cookies.get(SESSION_COOKIE)
    found = await current_session(request, rt)
    if token and found is not None:
        form_token = params.optional("csrfmiddlewaretoken", as_str, "")
        check_csrf(request.headers.get(CSRF_HEADER) or form_token, found[1])
        await web_sessions.do_delete_session(rt, token)
    redirect = Redirect("/login/", status_code=303)
    redirect.delete_cookie(SESSION_COOKIE, path="/")
    redirect.delete_cookie(CSRF_COOKIE, path="/")
    return redirect


@get("/accounts/api_key", opt={"public": True})
async def api_key_page(request: Request[Any, Any, Any], rt: Runtime) -> Response[str] | Redirect:
    found = await current_session(request, rt)
    if found is None:
        return Redirect("/login/", status_code=302)
    user, session = found
    realm = await realm_actions.get_realm(rt)
    page = account_pages.api_key_password_form(
        realm_name=realm.name,
        css_url=pages_css_url(),
        email=user.delivery_email,
        csrf_token=session.csrf_token,
    )
    return html(page, headers=_NO_STORE)


@post("/accounts/api_key", opt={"public": True})
async def api_key_submit(
    request: Request[Any, Any, Any], params: Params, rt: Runtime
) -> Response[str] | Redirect:
    found = await current_session(request, rt)
    if found is None:
        return Redirect("/login/", status_code=303)
    user, session = found
    check_csrf(params.optional("csrfmiddlewaretoken", as_str, ""), session)
    password = params.optional("password", as_str, "")
    regenerate = params.optional("action", as_str, "show") == "regenerate"
    realm = await realm_actions.get_realm(rt)
    client_ip = request.client.host if request.client is not None else ""
    try:
        await password_checks.require_password(rt, user, password, client_ip)
    except RateLimitedError as error:
        problem, status = limited_text(error), 429
    except ZulipError as error:
        problem, status = error.msg, error.http_status
    else:
        api_key = await user_actions.do_regenerate_api_key(rt, user) if regenerate else None
        view = account_pages.ApiKeyView(
            realm_name=realm.name,
            email=wire.api_email(user, realm.host),
            api_key=api_key or user.api_key,
            zuliprc=_zuliprc(request, rt, user, realm.host, api_key or user.api_key),
            csrf_token=session.csrf_token,
            regenerated=api_key is not None,
        )
        return html(account_pages.api_key_shown(view, css_url=pages_css_url()), headers=_NO_STORE)
    page = account_pages.api_key_password_form(
        realm_name=realm.name,
        css_url=pages_css_url(),
        email=user.delivery_email,
        csrf_token=session.csrf_token,
        problem=problem,
    )
    return html(page, status, headers=_NO_STORE)


def _zuliprc(
    request: Request[Any, Any, Any], rt: Runtime, user: UserRow, host: str, api_key: str
) -> str:
    site = realm_url(request, rt)
    return f"[api]\nemail={wire.api_email(user, host)}\nkey={api_key}\nsite={site}\n"


ROOT_ROUTES = [login_page, login_submit, logout, api_key_page, api_key_submit]
