"""The built-in web client (site root): GET / (the app shell, or the log-in page's redirect)
and GET /static/<version>/<file> (its modules and styles, cacheable for a year)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.enums import MediaType
from litestar.response import Redirect

from teamchat.actions.org import realm as realm_actions
from teamchat.errors import ResourceNotFoundError
from teamchat.http.routing import get
from teamchat.http.web_login import current_session
from teamchat.lib import web_pages
from teamchat.lib.web_assets import accepts_gzip, web_assets
from teamchat.runtime import Runtime

_YEAR_SECS = 365 * 24 * 3600
_DAY_SECS = 24 * 3600


@get("/", opt={"public": True})
async def web_app(request: Request[Any, Any, Any], rt: Runtime) -> Response[str] | Redirect:
    if await current_session(request, rt) is None:
        return Redirect("/login/", status_code=302)
    assets = web_assets()
    page = web_pages.app_shell(
        realm_name=(await realm_actions.get_realm(rt)).name,
        css_url=assets.url("app.css"),
        script_url=assets.url("js/main.js"),
        module_urls=tuple(assets.url(name) for name in assets.files if name.endswith(".js")),
        icon_url=assets.url("images/favicon.svg"),
        extra_css_urls=(assets.url("katex/katex.min.css"),),
    )
    return Response(page, media_type=MediaType.HTML, headers=web_pages.PAGE_HEADERS)


@get("/static/{version:str}/{name:path}", opt={"public": True})
async def web_asset(request: Request[Any, Any, Any], version: str, name: str) -> Response[bytes]:
    assets = web_assets()
    asset = assets.files.get(name.lstrip("/"))
    if version != assets.version or asset is None:
        raise ResourceNotFoundError("Not Found")
    headers = {
        "Cache-Control": f"public, max-age={_YEAR_SECS}, immutable",
        "X-Content-Type-Options": "nosniff",
        "Vary": "Accept-Encoding",
    }
    body = asset.content
    if accepts_gzip(request.headers.get("accept-encoding", "")):
        body = asset.gzipped
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type=asset.content_type, headers=headers)


def _unversioned(name: str) -> Response[bytes]:
    asset = web_assets().files.get(name)
    if asset is None:
        raise ResourceNotFoundError("Not Found")
    headers = {"Cache-Control": f"public, max-age={_DAY_SECS}", "X-Content-Type-Options": "nosniff"}
    return Response(asset.content, media_type=asset.content_type, headers=headers)


@get("/favicon.ico", opt={"public": True})
async def favicon() -> Response[bytes]:
    """The icon browsers ask for by themselves (a PNG; pages also link an SVG)."""
    return _unversioned("images/favicon.png")


@get("/static/images/{name:path}", opt={"public": True})
async def static_image(name: str) -> Response[bytes]:
    """Images at Zulip's unversioned paths, which message HTML may name (e.g. the thumbnail
    placeholder /static/images/loading/loader-black.svg) and pages link (the icon)."""
    return _unversioned("images/" + name.lstrip("/"))


ROOT_ROUTES = [web_app, web_asset, favicon, static_image]
