"""Browser log-in for the web client (site root): GET/POST /login/, POST /accounts/logout/,
GET /accounts/api_key/ (the API key and zuliprc of the logged-in person).

The session cookie is HttpOnly and SameSite=Lax (Secure behind HTTPS); the `csrftoken` cookie
is readable by the client, which sends it back as X-CSRFToken on every /json write.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.enums import MediaType
from litestar.response import Redirect

from teamchat.actions.org import realm as realm_actions
from teamchat.actions.people import web_sessions
from teamchat.errors import CsrfFailedError, RateLimitedError, ZulipError
from teamchat.http.auth import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, check_csrf
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get, post
from teamchat.http.urls import realm_url, request_origin
from teamchat.lib import signup_pages, web_pages, wire
from teamchat.lib.web_assets import web_assets
from teamchat.records import UserRow, WebSessionRow
from teamchat.runtime import Runtime


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


def _login_form(
    realm_name: str, username: str = "", problem: str = "", status: int = 200
) -> Response[str]:
    css = web_assets().url("login.css")
    page = web_pages.login_page(
        realm_name=realm_name, css_url=css, username=username, problem=problem
    )
    return Response(
        page, media_type=MediaType.HTML, status_code=status, headers=web_pages.PAGE_HEADERS
    )


@get("/login", opt={"public": True})
async def login_page(request: Request[Any, Any, Any], rt: Runtime) -> Response[str] | Redirect:
    if await current_session(request, rt) is not None:
        return Redirect("/", status_code=302)
    return _login_form((await realm_actions.get_realm(rt)).name)


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
        problem = f"Too many failed attempts; try again in {round(error.retry_after_secs)} seconds."
        return _login_form(realm_name, username, problem, 429)
    except ZulipError as error:
        return _login_form(realm_name, username, error.msg, error.http_status)
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
    user = found[0]
    realm = await realm_actions.get_realm(rt)
    api_email = wire.api_email(user, realm.host)
    site = realm_url(request, rt)
    zuliprc = f"[api]\nemail={api_email}\nkey={user.api_key}\nsite={site}\n"
    page = signup_pages.welcome(
        realm_name=realm.name, email=api_email, api_key=user.api_key, zuliprc=zuliprc
    )
    headers = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
    return Response(page, media_type=MediaType.HTML, headers=headers)


ROOT_ROUTES = [login_page, login_submit, logout, api_key_page]
