"""HTML responses: one helper for pages, the security headers every HTML response gets (added
at the ASGI edge, so no page can miss them), and the browser's page for an unknown address.

JSON stays the answer for /api/, /json/ and anything not asked for by a browser."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.enums import MediaType
from litestar.types import Message, Send

from teamchat.lib import account_pages
from teamchat.lib.web_assets import web_assets
from teamchat.lib.web_pages import PAGE_HEADERS

_PAGE_HEADER_ITEMS = [(key.lower().encode(), value.encode()) for key, value in PAGE_HEADERS.items()]
_API_PREFIXES = ("/api/", "/json/")
PAGES_CSS = "login.css"


def pages_css_url() -> str:
    """The stylesheet of every page outside the app (log-in, sign-up, reset, API key)."""
    return web_assets().url(PAGES_CSS)


def script_url(name: str) -> str:
    return web_assets().url(name)


def html(content: str, status: int = 200, headers: dict[str, str] | None = None) -> Response[str]:
    """An HTML page; the security headers come from `with_page_headers`."""
    return Response(content, media_type=MediaType.HTML, status_code=status, headers=headers)


def with_page_headers(send: Send) -> Send:
    """Wrap an ASGI `send`: an HTML response gets every PAGE_HEADERS header it lacks."""

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            if content_type.startswith(b"text/html"):
                present = {name.lower() for name, _ in headers}
                headers += [item for item in _PAGE_HEADER_ITEMS if item[0] not in present]
                message = {**message, "headers": headers}
        await send(message)

    return send_with_headers


def wants_html_not_found(request: Request[Any, Any, Any]) -> bool:
    """A browser navigating to an address outside the API."""
    path = request.url.path
    if path.startswith(_API_PREFIXES) or path in ("/api", "/json"):
        return False
    return "text/html" in request.headers.get("accept", "")


def not_found_page(request: Request[Any, Any, Any]) -> Response[str]:
    page = account_pages.not_found(css_url=pages_css_url(), path=request.url.path)
    return html(page, 404)
