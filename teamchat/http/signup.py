"""The sign-up pages an invitation link opens: GET and POST /join/{key}/ (site root). Signing up
ends logged in, in the web client."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.response import Redirect

from teamchat.actions.org import signup
from teamchat.http.html import html, pages_css_url, script_url
from teamchat.http.params import Params, as_str
from teamchat.http.routing import get, post
from teamchat.http.urls import realm_url
from teamchat.http.web_login import logged_in_redirect
from teamchat.lib import signup_pages
from teamchat.runtime import Runtime


def _link_problem(link: signup.LinkInfo, problem: str | None = None) -> Response[str]:
    text = problem or signup.LINK_PROBLEMS.get(link.state, "Invalid invitation.")
    page = signup_pages.link_problem(
        realm_name=link.realm.name, css_url=pages_css_url(), problem=text
    )
    return html(page, 404)


def _form(
    link: signup.LinkInfo,
    key: str,
    *,
    email: str = "",
    full_name: str = "",
    problem: str | None = None,
) -> Response[str]:
    assert link.invitation is not None
    fixed = link.invitation.email
    page = signup_pages.signup_form(
        realm_name=link.realm.name,
        css_url=pages_css_url(),
        script_url=script_url(signup_pages.STRENGTH_SCRIPT),
        action=f"/join/{key}/",
        email=fixed or email,
        email_fixed=fixed is not None,
        full_name=full_name,
        problem=problem,
    )
    return html(page, 400 if problem else 200)


@get("/join/{key:str}", opt={"public": True})
async def signup_page(key: str, rt: Runtime) -> Response[str]:
    link = await signup.get_link(rt, key)
    if link.state is not signup.LinkState.VALID:
        return _link_problem(link)
    return _form(link, key)


@post("/join/{key:str}", opt={"public": True})
async def signup_submit(
    request: Request[Any, Any, Any], key: str, params: Params, rt: Runtime
) -> Response[str] | Redirect:
    email = params.optional("email", as_str, "")
    full_name = params.optional("full_name", as_str, "")
    password = params.optional("password", as_str, "")
    result = await signup.accept_invitation(
        rt,
        key,
        email=email,
        full_name=full_name,
        password=password,
        realm_url=realm_url(request, rt),
    )
    link = await signup.get_link(rt, key)
    if result.user is None:
        if link.state is not signup.LinkState.VALID:
            return _link_problem(link, result.problem)
        return _form(link, key, email=email, full_name=full_name, problem=result.problem)
    # The new person lands in the web client, logged in; the API key page is linked from its
    # settings (GET /accounts/api_key/).
    return await logged_in_redirect(request, rt, result.user)


ROOT_ROUTES = [signup_page, signup_submit]
