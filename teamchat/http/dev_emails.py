"""GET /emails/ (site root, development servers only: the sandbox and `serve --dev`): the
emails the server sent, read back from its email log folder, as Zulip's development server
shows them. Elsewhere the address does not exist."""

from __future__ import annotations

import asyncio
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from litestar import Response

from teamchat.errors import ResourceNotFoundError
from teamchat.http.html import html, pages_css_url
from teamchat.http.routing import get
from teamchat.lib.account_pages import LoggedEmail, email_log
from teamchat.runtime import Runtime

_SHOWN_EMAILS = 100


def _read_log(folder: Path) -> list[LoggedEmail]:
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.eml"), reverse=True)[:_SHOWN_EMAILS]
    emails = []
    for path in paths:
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
        assert isinstance(message, EmailMessage)
        part = message.get_body(preferencelist=("plain",))
        emails.append(
            LoggedEmail(
                name=path.name,
                to=str(message["To"] or ""),
                subject=str(message["Subject"] or ""),
                date=str(message["Date"] or ""),
                body=part.get_content() if part is not None else "",
            )
        )
    return emails


@get("/emails", opt={"public": True})
async def email_log_page(rt: Runtime) -> Response[str]:
    folder = rt.settings.email_log_dir
    if not rt.settings.dev_auth or folder is None:
        raise ResourceNotFoundError("Not Found")
    emails = await asyncio.to_thread(_read_log, folder)
    page = email_log(css_url=pages_css_url(), folder=str(folder), emails=emails)
    return html(page, headers={"Cache-Control": "no-store"})


ROOT_ROUTES = [email_log_page]
