"""GET /accounts/confirm_new_email/{key}/ (site root): the link an email change mails."""

from __future__ import annotations

from litestar import Response

from teamchat.actions.org import realm as realm_actions
from teamchat.actions.people import email_change
from teamchat.errors import ZulipError
from teamchat.http.html import html, pages_css_url
from teamchat.http.routing import get
from teamchat.lib import signup_pages
from teamchat.runtime import Runtime


@get("/accounts/confirm_new_email/{key:str}", opt={"public": True})
async def confirm_new_email(key: str, rt: Runtime) -> Response[str]:
    realm_name = (await realm_actions.get_realm(rt)).name
    try:
        old, new = await email_change.do_confirm_email_change(rt, key)
    except ZulipError as error:
        page = signup_pages.link_problem(
            realm_name=realm_name, css_url=pages_css_url(), problem=error.msg
        )
        return html(page, 404)
    page = signup_pages.email_changed(
        realm_name=realm_name, css_url=pages_css_url(), old_email=old, new_email=new
    )
    return html(page)


ROOT_ROUTES = [confirm_new_email]
